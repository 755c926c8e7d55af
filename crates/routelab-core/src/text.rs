//! Reading text files: where invalid UTF-8 is, by line and byte offset.

/// `bytes` as text, or a reason naming the line, the column and the byte
/// offset of the first byte that is not UTF-8.
pub fn utf8(bytes: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(bytes).map_err(|e| describe(bytes, e.valid_up_to()))
}

/// The text of the file at `path`; the error says why it cannot be read
/// or where it stops being UTF-8.
pub fn read(path: &std::path::Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    String::from_utf8(bytes).map_err(|e| describe(e.as_bytes(), e.utf8_error().valid_up_to()))
}

fn describe(bytes: &[u8], at: usize) -> String {
    let before = &bytes[..at];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    format!(
        "invalid UTF-8 at line {line}, column {} (byte offset {at}: 0x{:02x})",
        at - start + 1,
        bytes[at]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_line_column_and_offset() {
        let e = utf8(b"{\n  \"a\": \"x\xff\"\n}").unwrap_err();
        assert_eq!(
            e,
            "invalid UTF-8 at line 2, column 10 (byte offset 11: 0xff)"
        );
        assert_eq!(utf8("héllo".as_bytes()), Ok("héllo"));
    }
}
