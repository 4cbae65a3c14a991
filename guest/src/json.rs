//! Output helpers: numbers printed the way JavaScript prints them, and raw JSON passed
//! through without re-encoding.

use serde::{Serialize, Serializer};
use serde_json::value::RawValue;

/// A number printed as `JSON.stringify` prints it: integral values without a fraction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JsNumber(pub f64);

impl Serialize for JsNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
            serializer.serialize_i64(v as i64)
        } else if v.is_finite() {
            serializer.serialize_f64(v)
        } else {
            serializer.serialize_unit()
        }
    }
}

/// Checks that a gateway-supplied message is one JSON value and keeps its text as is.
pub fn raw_json(json: String) -> Option<Box<RawValue>> {
    RawValue::from_string(json).ok()
}

/// Serialises a tool result. Results are plain data, so this cannot fail; the fallback
/// keeps the signature total.
pub fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"status\":\"error\",\"error\":\"{e}\"}}"))
}

/// A number as JSON writes it: whole numbers without a fraction.
pub fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 9.2e18 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}
