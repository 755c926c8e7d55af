//! The reference of every experiment-spec key, rendered as Markdown from
//! the doc comments and defaults of [`super::config`] (through its JSON
//! schema). `docs/sim-spec.md` is this text; a test fails when the two
//! differ, so the page cannot drift from the code.

use super::config::Spec;
use serde_json::{Map, Value};
use std::fmt::Write;

/// The JSON schema of [`Spec`]: every key, its type, default and doc.
pub fn schema() -> Value {
    schemars::schema_for!(Spec).to_value()
}

/// The Markdown reference of the spec's sections and keys.
pub fn reference() -> String {
    let root = schema();
    let defs = root.get("$defs").and_then(Value::as_object);
    let resolve = |v: &Value| -> Value { resolved(v, defs) };
    let mut out = String::from(
        "# Simulation spec reference\n\n\
         Generated from the doc comments of `crates/routelab-core/src/sim/config.rs` \
         (`ROUTELAB_BLESS=1 cargo test -p routelab-core --test suite spec_doc` writes it); \
         do not edit by hand. A spec is TOML with the sections below; unknown keys \
         are errors that name the key and the valid ones. `routelab sim --set \
         SECTION.KEY=VALUE` overrides one key.\n",
    );
    let sections = root.get("properties").and_then(Value::as_object);
    let required = names(root.get("required"));
    for (section, prop) in sections.into_iter().flatten() {
        let def = resolve(prop);
        let need = if required.contains(&section.as_str()) {
            "required"
        } else {
            "optional"
        };
        let _ = write!(out, "\n## `[{section}]` ({need})\n\n");
        if let Some(d) = def.get("description").and_then(Value::as_str) {
            let _ = writeln!(out, "{}\n", one_paragraph(d));
        }
        out.push_str("| key | type | default | meaning |\n|---|---|---|---|\n");
        let keys = def.get("properties").and_then(Value::as_object);
        let required = names(def.get("required"));
        let mut enums = Vec::new();
        for (key, p) in keys.into_iter().flatten() {
            let target = resolve(p);
            let default = p
                .get("default")
                .or_else(|| target.get("default"))
                .filter(|d| !d.is_null())
                .map(|d| format!("`{}`", toml_value(d)))
                .unwrap_or_else(|| {
                    if required.contains(&key.as_str()) {
                        "required".into()
                    } else {
                        "-".into()
                    }
                });
            let about = p
                .get("description")
                .or_else(|| target.get("description"))
                .and_then(Value::as_str)
                .map(one_paragraph)
                .unwrap_or_default();
            let variants = variants(&target);
            if !variants.is_empty() {
                enums.push((key.clone(), variants));
            }
            let _ = writeln!(
                out,
                "| `{key}` | {} | {default} | {} |",
                type_name(&target, defs),
                about.replace('|', "\\|")
            );
        }
        for (key, variants) in enums {
            let _ = write!(out, "\n`{section}.{key}`:\n\n");
            for (value, about) in variants {
                let _ = writeln!(out, "- `\"{value}\"`: {about}");
            }
        }
    }
    out
}

/// `v` with a `$ref` (possibly inside an `anyOf` with `null`, as an
/// `Option` renders) replaced by the definition it names.
fn resolved(v: &Value, defs: Option<&Map<String, Value>>) -> Value {
    if let Some(r) = v.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        if let Some(d) = defs.and_then(|d| d.get(name)) {
            return d.clone();
        }
    }
    if let Some(alts) = v.get("anyOf").and_then(Value::as_array) {
        let real: Vec<&Value> = alts.iter().filter(|a| !is_null(a)).collect();
        if real.len() == 1 && real[0].get("$ref").is_some() {
            return resolved(real[0], defs);
        }
    }
    v.clone()
}

fn is_null(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("null")
}

fn names(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The values of a string enum with their docs.
fn variants(v: &Value) -> Vec<(String, String)> {
    let alts = v.get("oneOf").or_else(|| v.get("anyOf"));
    let mut out = Vec::new();
    for a in alts.and_then(Value::as_array).into_iter().flatten() {
        let about = a
            .get("description")
            .and_then(Value::as_str)
            .map(one_paragraph)
            .unwrap_or_default();
        if let Some(c) = a.get("const").and_then(Value::as_str) {
            out.push((c.to_string(), about));
        } else if let Some(values) = a.get("enum").and_then(Value::as_array) {
            out.extend(
                values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|c| (c.to_string(), about.clone())),
            );
        }
    }
    if out.is_empty() {
        if let Some(values) = v.get("enum").and_then(Value::as_array) {
            out.extend(
                values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|c| (c.to_string(), String::new())),
            );
        }
    }
    out
}

/// A short type: `string`, `integer`, `"a" \| "b"`, `table`, ...
fn type_name(v: &Value, defs: Option<&Map<String, Value>>) -> String {
    let vs = variants(v);
    if !vs.is_empty() {
        return "string (below)".into();
    }
    if let Some(alts) = v.get("anyOf").or_else(|| v.get("oneOf")) {
        let kinds: Vec<String> = alts
            .as_array()
            .into_iter()
            .flatten()
            .filter(|a| !is_null(a))
            .map(|a| type_name(&resolved(a, defs), defs))
            .collect();
        return kinds.join(" or ");
    }
    let kind = match v.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("any")
            .to_string(),
        _ => "any".into(),
    };
    match kind.as_str() {
        "array" => match v.get("items") {
            Some(items) => format!("array of {}", type_name(&resolved(items, defs), defs)),
            None => "array".into(),
        },
        "object" => "table".into(),
        "number" => "float".into(),
        k => k.to_string(),
    }
}

/// A default as TOML shows it.
fn toml_value(v: &Value) -> String {
    match v {
        Value::String(s) => format!("\"{s}\""),
        Value::Object(m) if m.is_empty() => "{}".into(),
        Value::Array(a) if a.is_empty() => "[]".into(),
        other => other.to_string(),
    }
}

/// Doc text on one line: paragraphs joined, rustdoc links unwrapped.
fn one_paragraph(doc: &str) -> String {
    let text = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    // [`x`] and [`x`](path) -> `x`
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("[`") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find("`]") {
            Some(j) => {
                out.push_str(&after[..j + 1]);
                rest = &after[j + 2..];
                if rest.starts_with('(') {
                    if let Some(k) = rest.find(')') {
                        rest = &rest[k + 1..];
                    }
                }
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_section_and_key_is_documented() {
        let text = reference();
        for section in ["network", "router", "routing", "traffic", "run"] {
            assert!(text.contains(&format!("## `[{section}]`")), "{section}");
        }
        for key in [
            "`buffer_flits`",
            "`flow_control`",
            "`path_choice`",
            "`injection_limit`",
            "`watchdog_cycles`",
        ] {
            assert!(text.contains(key), "{key}");
        }
        // Every key row has a meaning.
        for row in text.lines().filter(|l| l.starts_with("| `")) {
            assert!(!row.ends_with("|  |"), "undocumented: {row}");
        }
        assert!(text.contains("- `\"stop-go\"`"), "enum values listed");
        assert!(text.contains("| `vcs` | integer | `0` |"), "defaults shown");
    }

    #[test]
    fn links_unwrap() {
        assert_eq!(
            one_paragraph("see [`super::roundtrip`] and [`X`](crate::X) ok"),
            "see `super::roundtrip` and `X` ok"
        );
    }
}
