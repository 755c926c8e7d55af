//! One line of an ibnetdiscover file, classified and split into fields.
//!
//! Nothing here looks at other lines: errors are reasons without a line
//! number, which the reader adds. Input is untrusted, so every number is
//! range-checked and every slice is cut at an ASCII delimiter.

use crate::network::NodeKind;
use crate::units::{Bandwidth, Picos};

/// The most ports a node can have (ports are `u16`).
pub(crate) const MAX_PORTS: u64 = u16::MAX as u64;

/// The kind of node section a header opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Switch,
    Ca,
    /// An InfiniBand router; the model has no routers, so it becomes a switch.
    Router,
}

impl Section {
    pub(crate) fn kind(self) -> NodeKind {
        match self {
            Section::Switch | Section::Router => NodeKind::Switch,
            Section::Ca => NodeKind::Terminal,
        }
    }

    pub(crate) fn keyword(self) -> &'static str {
        match self {
            Section::Switch => "Switch",
            Section::Ca => "Ca",
            Section::Router => "Rt",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// An empty line; it ends the current node section.
    Blank,
    /// A comment that is not a routelab directive.
    Comment,
    Directive(Directive<'a>),
    /// `switchguid=`, `caguid=`, `rtguid=`: the GUID of the next node.
    Guid {
        section: Section,
        guid: u64,
    },
    /// A line without meaning for the model: `vendid=`, `devid=`,
    /// `sysimgguid=`, ibsim's `width=`/`speed=`, chassis headings.
    Other,
    Node(NodeLine<'a>),
    Port(PortLine<'a>),
}

/// A `# routelab ...` comment, written by the exporter so that what the
/// plain format cannot hold survives a round trip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Directive<'a> {
    /// `# routelab network <name>`
    Name(&'a str),
    /// `# routelab class <token> <bandwidth> <latency>`
    Class {
        token: &'a str,
        bandwidth: Bandwidth,
        latency: Picos,
    },
}

/// `Switch 36 "S-0002c9..."  # "desc" enhanced port 0 lid 3 lmc 0`
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeLine<'a> {
    pub section: Section,
    pub ports: u16,
    pub id: &'a str,
    pub desc: Option<&'a str>,
    pub lid: Option<u32>,
}

/// `[p](guid) "S-..."[q](guid)  # lid L lmc 0 "desc" lid L2 4xQDR`, any
/// of the parenthesised GUIDs and the comment being optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PortLine<'a> {
    pub port: u16,
    pub guid: Option<u64>,
    pub lid: Option<u32>,
    pub remote: &'a str,
    pub remote_port: u16,
    pub remote_guid: Option<u64>,
    pub remote_lid: Option<u32>,
    pub remote_desc: Option<&'a str>,
    pub speed: Option<&'a str>,
    /// The word after the speed: routelab writes its class word there when
    /// the speed stands for a class of its own (`4xDDR switch`).
    pub class: Option<&'a str>,
}

const SETTINGS: &str =
    "switchguid, caguid, hcaguids, rtguid, vendid, devid, sysimgguid, width, speed";

/// Classifies and splits one line (without its line break).
pub(crate) fn parse(line: &str) -> Result<Line<'_>, String> {
    let text = line.trim();
    if text.is_empty() {
        return Ok(Line::Blank);
    }
    if let Some(comment) = text.strip_prefix('#') {
        return directive(comment);
    }
    if text.starts_with('[') {
        return port_line(text).map(Line::Port);
    }
    if text.starts_with('@') {
        return Err("ibsim port aliases ('@') are not supported".into());
    }
    let word_end = text
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let (word, rest) = text.split_at(word_end);
    if let Some(value) = rest.trim_start().strip_prefix('=') {
        return setting(word, value);
    }
    let section = match word {
        "Switch" => Some(Section::Switch),
        "Ca" | "Hca" => Some(Section::Ca),
        "Rt" => Some(Section::Router),
        _ => None,
    };
    match section {
        Some(section) if rest.starts_with(char::is_whitespace) => {
            node_line(section, rest).map(Line::Node)
        }
        _ if word == "Chassis" || word == "Hostname" || text.starts_with("Non-Chassis") => {
            Ok(Line::Other)
        }
        _ => Err(format!(
            "cannot understand '{}': expected a Switch, Ca or Rt header, a [port] line, \
             a setting such as switchguid=0x..., or a # comment",
            clip(text)
        )),
    }
}

/// Whether a class name can stand as the speed word of a port line.
pub(crate) fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s != "lid"
        && s != "lmc"
        && !s.chars().any(|c| {
            c.is_whitespace()
                || c.is_control()
                || matches!(c, '"' | '#' | '=' | '[' | ']' | '(' | ')')
        })
}

/// The first 40 characters of `text`, for messages.
pub(crate) fn clip(text: &str) -> String {
    const MAX: usize = 40;
    match text.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

fn directive(comment: &str) -> Result<Line<'_>, String> {
    let body = comment.trim();
    let Some(rest) = body.strip_prefix("routelab") else {
        return Ok(Line::Comment);
    };
    if !rest.starts_with(char::is_whitespace) {
        return Ok(Line::Comment);
    }
    let rest = rest.trim_start();
    if let Some(name) = rest.strip_prefix("network") {
        if name.is_empty() || name.starts_with(char::is_whitespace) {
            return Ok(Line::Directive(Directive::Name(name.trim())));
        }
    }
    if let Some(fields) = rest.strip_prefix("class") {
        if fields.starts_with(char::is_whitespace) {
            let usage = "expected '# routelab class <name> <bandwidth> <latency>', \
                         e.g. '# routelab class 4xQDR 32Gb/s 100ns'";
            let f: Vec<&str> = fields.split_whitespace().take(4).collect();
            let [token, bandwidth, latency] = f[..] else {
                return Err(usage.into());
            };
            let bandwidth = Bandwidth::parse(bandwidth).map_err(|e| e.to_string())?;
            let latency = Picos::parse(latency).map_err(|e| e.to_string())?;
            return Ok(Line::Directive(Directive::Class {
                token,
                bandwidth,
                latency,
            }));
        }
    }
    // Unknown directives are left to newer versions.
    Ok(Line::Comment)
}

fn setting<'a>(key: &str, value: &'a str) -> Result<Line<'a>, String> {
    let lower = key.to_ascii_lowercase();
    let section = match lower.as_str() {
        "switchguid" => Some(Section::Switch),
        "caguid" | "hcaguids" => Some(Section::Ca),
        "rtguid" => Some(Section::Router),
        "vendid" | "devid" | "sysimgguid" | "width" | "speed" => None,
        _ => {
            return Err(format!(
                "unknown setting '{}'; known settings: {SETTINGS}",
                clip(key)
            ))
        }
    };
    let mut c = Cursor(value.trim_start());
    let number = c
        .number()
        .ok_or_else(|| format!("expected a number after '{key}='"))?
        .map_err(|e| format!("{key}: {e}"))?;
    if c.eat('(') {
        c.guid_in_parens()?;
    }
    c.expect_end_or_comment()?;
    Ok(match section {
        Some(section) => Line::Guid {
            section,
            guid: number,
        },
        None => Line::Other,
    })
}

fn node_line(section: Section, rest: &str) -> Result<NodeLine<'_>, String> {
    let mut c = Cursor(rest.trim_start());
    let ports = c
        .number()
        .ok_or_else(|| format!("expected the port count after '{}'", section.keyword()))??;
    if ports > MAX_PORTS {
        return Err(format!(
            "port count {ports} is more than {MAX_PORTS}, the most a node can have"
        ));
    }
    c.skip_ws();
    let id = c.quoted("node id")?;
    c.skip_ws();
    let comment = c.expect_end_or_comment()?;
    let (desc, lid) = match comment {
        None => (None, None),
        Some(comment) => {
            let (_, desc, after) = split_desc(comment)?;
            match desc {
                Some(desc) => (Some(desc), fields(after)?.lid),
                None => {
                    // ibsim allows an unquoted description before the fields.
                    let at = first_keyword(comment).unwrap_or(comment.len());
                    let desc = comment[..at].trim();
                    let desc = (!desc.is_empty()).then_some(desc);
                    (desc, fields(&comment[at..])?.lid)
                }
            }
        }
    };
    Ok(NodeLine {
        section,
        ports: ports as u16,
        id,
        desc,
        lid,
    })
}

fn port_line(text: &str) -> Result<PortLine<'_>, String> {
    let mut c = Cursor(text);
    let port = c.port_in_brackets("port")?;
    c.ext_port()?;
    let guid = if c.eat('(') {
        Some(c.guid_in_parens()?)
    } else {
        None
    };
    c.skip_ws();
    let remote = c.quoted("remote node id")?;
    c.skip_ws();
    if !c.0.starts_with('[') {
        return Err(format!(
            "expected the remote port, as in \"{}\"[1], after the remote node id",
            clip(remote)
        ));
    }
    let remote_port = c.port_in_brackets("remote port")?;
    c.ext_port()?;
    c.skip_ws();
    let remote_guid = if c.eat('(') {
        Some(c.guid_in_parens()?)
    } else {
        None
    };
    c.skip_ws();
    let (options, comment) = match c.0.split_once('#') {
        Some((o, comment)) => (o, Some(comment)),
        None => (c.0, None),
    };
    // ibsim's per-port options such as w=4 s=2.
    if let Some(tok) = options.split_whitespace().find(|t| !t.contains('=')) {
        return Err(format!(
            "unexpected '{}' after the remote port; a comment starts with #",
            clip(tok)
        ));
    }
    let mut line = PortLine {
        port,
        guid,
        lid: None,
        remote,
        remote_port,
        remote_guid,
        remote_lid: None,
        remote_desc: None,
        speed: None,
        class: None,
    };
    if let Some(comment) = comment {
        let (before, desc, after) = split_desc(comment)?;
        // Without the quoted description the comment is free text.
        if desc.is_some() {
            line.lid = fields(before)?.lid;
            let after = fields(after)?;
            line.remote_desc = desc;
            line.remote_lid = after.lid;
            line.speed = after.free;
            line.class = after.second;
        }
    }
    Ok(line)
}

/// Splits a comment at its quoted description: the text before the first
/// `"`, between it and the last `"`, and after. Taking the last quote keeps
/// descriptions that contain quotes whole.
fn split_desc(comment: &str) -> Result<(&str, Option<&str>, &str), String> {
    match (comment.find('"'), comment.rfind('"')) {
        (Some(a), Some(b)) if a < b => {
            Ok((&comment[..a], Some(&comment[a + 1..b]), &comment[b + 1..]))
        }
        (Some(_), _) => Err("unterminated description: it needs a closing '\"'".into()),
        _ => Ok((comment, None, "")),
    }
}

/// Where the first of the header keywords `lid`, `lmc`, `enhanced`, `base`
/// starts as a word.
fn first_keyword(text: &str) -> Option<usize> {
    ["lid", "lmc", "enhanced", "base"]
        .iter()
        .filter_map(|kw| {
            text.match_indices(kw).map(|(i, _)| i).find(|&i| {
                let before = text[..i].chars().next_back();
                let after = text[i + kw.len()..].chars().next();
                let edge = |c: Option<char>| c.filter(|c| !c.is_whitespace()).is_none();
                edge(before) && edge(after)
            })
        })
        .min()
}

/// The `lid N` and `lmc N` fields of a comment, and the first other word
/// without `=` (the link speed in port lines).
#[derive(Debug, Default)]
struct Fields<'a> {
    lid: Option<u32>,
    free: Option<&'a str>,
    second: Option<&'a str>,
}

fn fields(text: &str) -> Result<Fields<'_>, String> {
    let mut out = Fields::default();
    let mut words = text.split_whitespace();
    while let Some(w) = words.next() {
        match w {
            "lid" | "lmc" => {
                let word = words
                    .next()
                    .ok_or_else(|| format!("expected a number after '{w}'"))?;
                let v = number_word(word).map_err(|e| format!("{w}: {e}"))?;
                if w == "lid" {
                    if v > u64::from(u32::MAX) {
                        return Err(format!("lid {v} is out of range"));
                    }
                    out.lid = Some(v as u32);
                }
            }
            _ if w.contains('=') => {}
            _ => {
                if out.free.is_none() {
                    out.free = Some(w);
                } else if out.second.is_none() {
                    out.second = Some(w);
                }
            }
        }
    }
    Ok(out)
}

/// The unread rest of a line.
struct Cursor<'a>(&'a str);

impl<'a> Cursor<'a> {
    fn skip_ws(&mut self) {
        self.0 = self.0.trim_start();
    }

    fn eat(&mut self, c: char) -> bool {
        match self.0.strip_prefix(c) {
            Some(rest) => {
                self.0 = rest;
                true
            }
            None => false,
        }
    }

    fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let end = self.0.find(|c: char| !f(c)).unwrap_or(self.0.len());
        let (head, rest) = self.0.split_at(end);
        self.0 = rest;
        head
    }

    /// A decimal or `0x` hexadecimal number; `None` if there is none.
    fn number(&mut self) -> Option<Result<u64, String>> {
        if let Some(rest) = self
            .0
            .strip_prefix("0x")
            .or_else(|| self.0.strip_prefix("0X"))
        {
            self.0 = rest;
            let digits = self.take_while(|c| c.is_ascii_hexdigit());
            return Some(hex(digits));
        }
        let digits = self.take_while(|c| c.is_ascii_digit());
        if digits.is_empty() {
            return None;
        }
        Some(
            digits
                .parse()
                .map_err(|_| format!("number {} is too large", clip(digits))),
        )
    }

    /// `[12]`: a port number in 1..=65535.
    fn port_in_brackets(&mut self, what: &str) -> Result<u16, String> {
        if !self.eat('[') {
            return Err(format!("expected [{what}]"));
        }
        let digits = self.take_while(|c| c.is_ascii_digit());
        if !self.eat(']') {
            return Err(format!("expected a number and ']' in [{what}]"));
        }
        if digits.is_empty() {
            return Err(format!("[{what}] needs a number"));
        }
        match digits.parse::<u64>() {
            Ok(0) => Err(format!(
                "{what} 0 is a switch's management port; cabled ports start at 1"
            )),
            Ok(p) if p <= MAX_PORTS => Ok(p as u16),
            _ => Err(format!(
                "{what} {} is more than {MAX_PORTS}, the most a node can have",
                clip(digits)
            )),
        }
    }

    /// An optional `[ext N]` (a chassis' external port label), skipped.
    fn ext_port(&mut self) -> Result<(), String> {
        if let Some(rest) = self.0.strip_prefix("[ext") {
            let end = rest
                .find(']')
                .ok_or_else(|| "unterminated [ext N]".to_string())?;
            let n = rest[..end].trim();
            if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("[ext {}] needs a number", clip(n)));
            }
            self.0 = &rest[end + 1..];
        }
        Ok(())
    }

    /// The hexadecimal GUID after an opening `(`, and the closing `)`.
    fn guid_in_parens(&mut self) -> Result<u64, String> {
        if let Some(rest) = self
            .0
            .strip_prefix("0x")
            .or_else(|| self.0.strip_prefix("0X"))
        {
            self.0 = rest;
        }
        let digits = self.take_while(|c| c.is_ascii_hexdigit());
        if !self.eat(')') {
            return Err("expected a hexadecimal GUID and ')' in (...)".into());
        }
        hex(digits)
    }

    /// A `"quoted"` non-empty string.
    fn quoted(&mut self, what: &str) -> Result<&'a str, String> {
        if !self.eat('"') {
            return Err(format!("expected the quoted {what}"));
        }
        let end = self
            .0
            .find('"')
            .ok_or_else(|| format!("unterminated {what}: it needs a closing '\"'"))?;
        let s = &self.0[..end];
        self.0 = &self.0[end + 1..];
        if s.trim().is_empty() {
            return Err(format!("empty {what}"));
        }
        Ok(s)
    }

    /// Nothing but white space and an optional `# comment`, which is returned.
    fn expect_end_or_comment(&mut self) -> Result<Option<&'a str>, String> {
        let rest = self.0.trim_start();
        if rest.is_empty() {
            return Ok(None);
        }
        match rest.strip_prefix('#') {
            Some(comment) => Ok(Some(comment)),
            None => Err(format!(
                "unexpected '{}'; a comment starts with #",
                clip(rest)
            )),
        }
    }
}

/// A whole word as a decimal or `0x` hexadecimal number.
fn number_word(word: &str) -> Result<u64, String> {
    let mut c = Cursor(word);
    match c.number() {
        Some(n) if c.0.is_empty() => n,
        _ => Err(format!("'{}' is not a number", clip(word))),
    }
}

/// 1 to 16 hexadecimal digits.
pub(crate) fn hex(digits: &str) -> Result<u64, String> {
    if digits.is_empty() || digits.len() > 16 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "'{}' is not 1 to 16 hexadecimal digits",
            clip(digits)
        ));
    }
    u64::from_str_radix(digits, 16).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(text: &str) -> PortLine<'_> {
        match parse(text).unwrap() {
            Line::Port(p) => p,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn switch_header() {
        let l = parse("Switch\t36 \"S-0002c902004a0950\"\t\t# \"MF0;sw-1:IS5030/U1\" enhanced port 0 lid 3 lmc 0").unwrap();
        assert_eq!(
            l,
            Line::Node(NodeLine {
                section: Section::Switch,
                ports: 36,
                id: "S-0002c902004a0950",
                desc: Some("MF0;sw-1:IS5030/U1"),
                lid: Some(3),
            })
        );
        let Line::Node(n) = parse("Switch 8 \"Switch1\"").unwrap() else {
            panic!()
        };
        assert_eq!((n.ports, n.id, n.desc, n.lid), (8, "Switch1", None, None));
        let Line::Node(n) = parse("Hca\t2 \"Hca1\"\t# host one lid 4").unwrap() else {
            panic!()
        };
        assert_eq!(
            (n.section, n.desc, n.lid),
            (Section::Ca, Some("host one"), Some(4))
        );
    }

    #[test]
    fn switch_port_lines() {
        let p = port("[1]\t\"S-0002c90200400a10\"[13]\t\t# \"spine-2\" lid 2 4xQDR");
        assert_eq!(
            (p.port, p.remote, p.remote_port),
            (1, "S-0002c90200400a10", 13)
        );
        assert_eq!(
            (p.remote_desc, p.remote_lid, p.speed),
            (Some("spine-2"), Some(2), Some("4xQDR"))
        );
        let p = port("[3]\t\"H-0002c9030001e3f2\"[1](2c9030001e3f3) \t\t# \"node01 HCA-1\" lid 5 4xEDR s=4 w=2 v=4");
        assert_eq!(
            (p.remote_guid, p.remote_lid, p.speed),
            (Some(0x2c9030001e3f3), Some(5), Some("4xEDR"))
        );
        let p = port("[7][ext 12]\t\"S-0002c90200400a10\"[2][ext 3]\t\t# \"x\" lid 2 4xQDR");
        assert_eq!((p.port, p.remote_port), (7, 2));
    }

    #[test]
    fn ca_port_lines() {
        let p = port("[1](2c9030001e3f3) \t\"S-0002c902004a0950\"[3]\t\t# lid 5 lmc 0 \"sw \"1\"\" lid 3 4xQDR");
        assert_eq!((p.guid, p.lid), (Some(0x2c9030001e3f3), Some(5)));
        assert_eq!((p.remote_desc, p.remote_lid), (Some("sw \"1\""), Some(3)));
        let p = port("[2](2c9030001e3f4) \t\"H-0002c9030001e300\"[1] (2c9030001e301) \t\t# lid 6 lmc 0 \"peer\" lid 9 4xQDR");
        assert_eq!(p.remote_guid, Some(0x2c9030001e301));
        let p = port("[1]\t\"Switch1\"[1]\tw=12");
        assert_eq!((p.remote, p.speed), ("Switch1", None));
    }

    #[test]
    fn settings_and_directives() {
        assert_eq!(
            parse("switchguid=0x2c90200448ec8(2c90200448ec8)").unwrap(),
            Line::Guid {
                section: Section::Switch,
                guid: 0x2c90200448ec8
            }
        );
        assert_eq!(
            parse("Caguid=0x2c9030001e3f2").unwrap(),
            Line::Guid {
                section: Section::Ca,
                guid: 0x2c9030001e3f2
            }
        );
        assert_eq!(parse("vendid=0x2c9").unwrap(), Line::Other);
        assert_eq!(
            parse("sysimgguid=0x2c90200448ecb\t\t# Chassis 1").unwrap(),
            Line::Other
        );
        assert_eq!(
            parse("# Topology file: generated on ...").unwrap(),
            Line::Comment
        );
        assert_eq!(
            parse("# routelab network torus:4x4").unwrap(),
            Line::Directive(Directive::Name("torus:4x4"))
        );
        assert!(matches!(
            parse("# routelab class switch 20Gb/s 100ns").unwrap(),
            Line::Directive(Directive::Class {
                token: "switch",
                ..
            })
        ));
    }

    #[test]
    fn bad_lines_say_why() {
        let err = |t: &str| parse(t).unwrap_err();
        assert!(err("Switch 4000000000 \"x\"").contains("65535"));
        assert!(err("Switch 99999999999999999999999 \"x\"").contains("too large"));
        assert!(err("Switch 8 \"x").contains("unterminated"));
        assert!(err("[0]\t\"x\"[1]").contains("management"));
        assert!(err("[70000]\t\"x\"[1]").contains("65535"));
        assert!(err("[1]\t\"x\"").contains("remote port"));
        assert!(err("[1]\t\"x\"[2] junk").contains("junk"));
        assert!(err("[1](zz)\t\"x\"[2]").contains("GUID"));
        assert!(err("[1](123456789abcdef01)\t\"x\"[2]").contains("16 hexadecimal"));
        assert!(err("[1]\t\"x\"[2]\t# \"d\" lid 12abc 4xQDR").contains("'12abc' is not a number"));
        assert!(err("[1]\t\"x\"[2]\t# \"d\" lid 99999999999 4xQDR").contains("out of range"));
        assert!(err("switchguid=0x").contains("hexadecimal"));
        assert!(err("[1]\t\"x\"[2]\t# \"desc lid 3").contains("unterminated"));
        assert!(err("[1]\t\"x\"[2]\t# \"d\" lid x").contains("not a number"));
        assert!(err("[1]\t\"x\"[2]\t# \"d\" lid").contains("number after 'lid'"));
        assert!(err("frobnicate").contains("cannot understand"));
        assert!(err("colour=blue").contains("unknown setting"));
        assert!(err("# routelab class x 20Gb/s").contains("routelab class"));
    }
}
