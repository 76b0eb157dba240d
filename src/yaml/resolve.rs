//! Scalar typing as Kubernetes applies it.
//!
//! `kubectl` and the API machinery turn YAML into JSON with sigs.k8s.io/yaml, which reads YAML
//! through go-yaml v2: YAML 1.1 rules, so `yes`/`on`/`y` are booleans and `0644` is the octal
//! integer 420. This module follows go-yaml v2's `resolve()` (resolve.go) rule for rule.

use std::borrow::Cow;

use super::node::{Document, NodeId, Scalar, ScalarStyle};

/// The typed value of a scalar.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Resolved<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(&'a str),
}

/// Types a scalar the way go-yaml v2 does; quoted and block scalars are always strings.
pub(crate) fn resolve<'a>(scalar: &Scalar<'a>) -> Resolved<'a> {
    let text = scalar.value;
    match scalar.tag {
        None => {}
        Some("str" | "binary") => return Resolved::Str(text),
        Some("null" | "bool" | "int" | "float") => return resolve_plain(text),
        // go-yaml v2 leaves values with custom tags as strings.
        Some(_) => return Resolved::Str(text),
    }
    match scalar.style {
        ScalarStyle::Plain => resolve_plain(text),
        _ => Resolved::Str(text),
    }
}

/// go-yaml v2's resolution of an untagged plain scalar.
pub(crate) fn resolve_plain(text: &str) -> Resolved<'_> {
    // go-yaml looks at the first character to decide what the scalar may be.
    let Some(first) = text.bytes().next() else {
        return Resolved::Null;
    };
    match text {
        "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Resolved::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Resolved::Bool(false);
        }
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        _ => {}
    }
    match first {
        b'.' => match parse_yaml_float(text) {
            Some(f) => Resolved::Float(f),
            None => Resolved::Str(text),
        },
        b'+' | b'-' | b'0'..=b'9' => resolve_number(text).unwrap_or(Resolved::Str(text)),
        _ => Resolved::Str(text),
    }
}

fn resolve_number(text: &str) -> Option<Resolved<'_>> {
    // Timestamps (2001-12-14) stay strings when decoded into untyped values, as sigs.k8s.io/yaml
    // does; none of the parsers below accepts them.
    let plain: Cow<'_, str> = if text.contains('_') {
        Cow::Owned(text.chars().filter(|&c| c != '_').collect())
    } else {
        Cow::Borrowed(text)
    };
    if let Some(value) = parse_go_int(&plain) {
        return Some(match i64::try_from(value) {
            Ok(i) => Resolved::Int(i),
            Err(_) => match u64::try_from(value) {
                Ok(u) => Resolved::UInt(u),
                Err(_) => return parse_yaml_float(&plain).map(Resolved::Float),
            },
        });
    }
    parse_yaml_float(&plain).map(Resolved::Float)
}

/// `strconv.ParseInt(s, 0, 64)` and `ParseUint`: an optional sign, then `0x`, `0o`, `0b` or a
/// leading `0` (octal) prefix, or decimal digits. Returns the value when it fits in 64 bits
/// (signed or unsigned).
fn parse_go_int(text: &str) -> Option<i128> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = digits.get(..2).map(str::to_ascii_lowercase);
    let (radix, body) = match lower.as_deref() {
        Some("0x") => (16, &digits[2..]),
        Some("0o") => (8, &digits[2..]),
        Some("0b") => (2, &digits[2..]),
        _ if digits.len() > 1 && digits.starts_with('0') => (8, &digits[1..]),
        _ => (10, digits),
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(body, radix).ok()?;
    let value = if negative {
        -i128::from(magnitude)
    } else {
        i128::from(magnitude)
    };
    // ParseInt accepts [-2^63, 2^63); ParseUint accepts [0, 2^64) without a sign.
    let fits = if negative {
        value >= i128::from(i64::MIN)
    } else {
        true
    };
    fits.then_some(value)
}

/// go-yaml v2 only hands a value to `strconv.ParseFloat` when it matches
/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn parse_yaml_float(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let mut i = 0;
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits_before = count_digits(&bytes[i..]);
    i += digits_before;
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        let digits_after = count_digits(&bytes[i..]);
        if digits_before == 0 && digits_after == 0 {
            return None;
        }
        i += digits_after;
    } else if digits_before == 0 {
        return None;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exponent = count_digits(&bytes[i..]);
        if exponent == 0 {
            return None;
        }
        i += exponent;
    }
    if i != bytes.len() {
        return None;
    }
    text.parse().ok()
}

fn count_digits(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// The string a mapping key becomes in JSON: sigs.k8s.io/yaml turns non-string keys into their
/// text (`true`, `1`, `null`). Collections as keys have no string form.
pub(crate) fn key_string(document: &Document, id: NodeId) -> Option<String> {
    key_text(document, id).map(Cow::into_owned)
}

/// [`key_string`], borrowed from the document when the key is a string.
pub(crate) fn key_text(document: &Document, id: NodeId) -> Option<Cow<'_, str>> {
    let scalar = document.scalar(id)?;
    Some(match resolve(&scalar) {
        Resolved::Null => Cow::Borrowed("null"),
        Resolved::Bool(b) => Cow::Borrowed(if b { "true" } else { "false" }),
        Resolved::Int(i) => Cow::Owned(i.to_string()),
        Resolved::UInt(u) => Cow::Owned(u.to_string()),
        Resolved::Float(f) => Cow::Owned(go_format_float(f)),
        Resolved::Str(s) => Cow::Borrowed(s),
    })
}

/// `strconv.FormatFloat(f, 'g', -1, 64)` for the values that matter here.
pub(crate) fn go_format_float(f: f64) -> String {
    if let Some(name) = go_non_finite(f) {
        return name.to_owned();
    }
    let text = f.to_string();
    text.strip_suffix(".0")
        .map_or_else(|| text.clone(), str::to_owned)
}

/// How Go writes NaN and the infinities; `None` for a finite value.
pub(super) fn go_non_finite(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" })
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> Resolved<'_> {
        resolve_plain(text)
    }

    #[test]
    fn yaml_1_1_scalars_resolve_like_go_yaml_v2() {
        let table: &[(&str, Resolved<'_>)] = &[
            ("", Resolved::Null),
            ("~", Resolved::Null),
            ("null", Resolved::Null),
            ("NULL", Resolved::Null),
            ("yes", Resolved::Bool(true)),
            ("Yes", Resolved::Bool(true)),
            ("on", Resolved::Bool(true)),
            ("ON", Resolved::Bool(true)),
            ("y", Resolved::Bool(true)),
            ("True", Resolved::Bool(true)),
            ("no", Resolved::Bool(false)),
            ("off", Resolved::Bool(false)),
            ("n", Resolved::Bool(false)),
            ("FALSE", Resolved::Bool(false)),
            ("yEs", Resolved::Str("yEs")),
            ("0644", Resolved::Int(420)),
            ("0755", Resolved::Int(493)),
            ("0", Resolved::Int(0)),
            ("-0", Resolved::Int(0)),
            ("42", Resolved::Int(42)),
            ("+42", Resolved::Int(42)),
            ("-17", Resolved::Int(-17)),
            ("1_000", Resolved::Int(1000)),
            ("0x1F", Resolved::Int(31)),
            ("0X1f", Resolved::Int(31)),
            ("0o17", Resolved::Int(15)),
            ("0b1010", Resolved::Int(10)),
            ("-0b11", Resolved::Int(-3)),
            // Not octal, so go-yaml falls through to ParseFloat.
            ("08", Resolved::Float(8.0)),
            ("09.5", Resolved::Float(9.5)),
            ("1.5", Resolved::Float(1.5)),
            ("1e3", Resolved::Float(1000.0)),
            ("-2.5E-1", Resolved::Float(-0.25)),
            (".5", Resolved::Float(0.5)),
            ("9223372036854775807", Resolved::Int(i64::MAX)),
            (
                "9223372036854775808",
                Resolved::UInt(9_223_372_036_854_775_808),
            ),
            (
                "18446744073709551616",
                Resolved::Float(18_446_744_073_709_551_616.0),
            ),
            (".inf", Resolved::Float(f64::INFINITY)),
            ("-.Inf", Resolved::Float(f64::NEG_INFINITY)),
            ("2001-12-14", Resolved::Str("2001-12-14")),
            ("1.2.3", Resolved::Str("1.2.3")),
            ("0x", Resolved::Str("0x")),
            ("+", Resolved::Str("+")),
            ("-", Resolved::Str("-")),
            (".", Resolved::Str(".")),
            ("1e", Resolved::Str("1e")),
            ("12h", Resolved::Str("12h")),
            ("nginx:1.25", Resolved::Str("nginx:1.25")),
            ("Always", Resolved::Str("Always")),
        ];
        for (text, expected) in table {
            assert_eq!(&plain(text), expected, "resolving {text:?}");
        }
        assert!(matches!(plain(".nan"), Resolved::Float(f) if f.is_nan()));
    }

    #[test]
    fn quoted_and_tagged_scalars() {
        let scalar = |value, style, tag| Scalar { value, style, tag };
        assert_eq!(
            resolve(&scalar("yes", ScalarStyle::DoubleQuoted, None)),
            Resolved::Str("yes")
        );
        assert_eq!(
            resolve(&scalar("0644", ScalarStyle::SingleQuoted, None)),
            Resolved::Str("0644")
        );
        assert_eq!(
            resolve(&scalar("12", ScalarStyle::Literal, None)),
            Resolved::Str("12")
        );
        assert_eq!(
            resolve(&scalar("12", ScalarStyle::Plain, Some("str"))),
            Resolved::Str("12")
        );
        assert_eq!(
            resolve(&scalar("12", ScalarStyle::Plain, Some("int"))),
            Resolved::Int(12)
        );
        assert_eq!(
            resolve(&scalar("12", ScalarStyle::Plain, Some("!custom"))),
            Resolved::Str("12")
        );
    }
}
