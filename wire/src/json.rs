//! Reading untrusted JSON answers (a field of the wrong type is absent) and writing params
//! (absent optional values omitted).

use serde_json::{Map, Value};

/// An object being written: optional values are left out when absent.
#[derive(Default)]
pub(crate) struct Object(Map<String, Value>);

impl Object {
    pub fn new() -> Self {
        Object(Map::new())
    }

    pub fn set(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.0.insert(key.to_string(), value.into());
        self
    }

    pub fn opt(mut self, key: &str, value: Option<impl Into<Value>>) -> Self {
        if let Some(value) = value {
            self.0.insert(key.to_string(), value.into());
        }
        self
    }

    pub fn opt_str(self, key: &str, value: &Option<String>) -> Self {
        self.opt(key, value.clone())
    }

    pub fn done(self) -> Value {
        Value::Object(self.0)
    }
}

pub(crate) fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

pub(crate) fn num_field(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64).filter(|n| n.is_finite())
}

/// A whole number of a number field (floored; clamped into `i64` by the cast).
pub(crate) fn int_field(v: &Value, key: &str) -> Option<i64> {
    num_field(v, key).map(|n| n.floor() as i64)
}

pub(crate) fn bool_field(v: &Value, key: &str) -> Option<bool> {
    v.get(key).and_then(Value::as_bool)
}
