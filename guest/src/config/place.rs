//! A place in the deployment config: the value there, if any, and its path in the grammar
//! of `wit/config-paths.json` (`agents.list[].subagents.model`, `models.providers.*`).
//!
//! Every read of the config goes through a [`Place`], so the paths the guest reads are
//! known: the hosts give the guest exactly the paths of that file and nothing else (N16),
//! and the tests of `config.rs` hold the guest to it (a read of a path the file does not
//! list fails them).

use serde_json::{Map, Value};

#[derive(Debug, Clone)]
pub(super) struct Place<'a> {
    value: Option<&'a Value>,
    path: String,
}

impl<'a> Place<'a> {
    pub fn root(value: &'a Value) -> Place<'a> {
        Place { value: Some(value), path: String::new() }
    }

    /// The value under `key` of the object here.
    pub fn key(&self, key: &str) -> Place<'a> {
        let path = if self.path.is_empty() { key.to_string() } else { format!("{}.{key}", self.path) };
        Place { value: self.value.and_then(Value::as_object).and_then(|map| map.get(key)), path }
    }

    /// The value at a path of keys below here.
    pub fn at(&self, keys: &[&str]) -> Place<'a> {
        keys.iter().fold(self.clone(), |place, key| place.key(key))
    }

    /// Reads the value here (a path of the file ends here).
    pub fn read(&self) -> Option<&'a Value> {
        record::leaf(&self.path);
        self.value
    }

    pub fn str(&self) -> Option<&'a str> {
        self.read().and_then(Value::as_str)
    }

    pub fn f64(&self) -> Option<f64> {
        self.read().and_then(Value::as_f64)
    }

    /// Whether the value here is `true`.
    pub fn is_true(&self) -> bool {
        self.read() == Some(&Value::Bool(true))
    }

    /// The object here (a path of the file goes on into it).
    pub fn object(&self) -> Option<&'a Map<String, Value>> {
        record::container(&self.path);
        self.value.and_then(Value::as_object)
    }

    /// The elements of the array here (`[]`), or `None` when there is no array.
    pub fn elements(&self) -> Option<Vec<Place<'a>>> {
        record::container(&self.path);
        let items = self.value?.as_array()?;
        let path = format!("{}[]", self.path);
        Some(items.iter().map(|item| Place { value: Some(item), path: path.clone() }).collect())
    }

    /// The entries of the object here (`*`), in order.
    pub fn entries(&self) -> Vec<(&'a str, Place<'a>)> {
        let path = format!("{}.*", self.path);
        self.object()
            .map(|map| map.iter().map(|(key, value)| (key.as_str(), Place { value: Some(value), path: path.clone() })).collect())
            .unwrap_or_default()
    }
}

/// What the guest read, kept by tests only.
#[cfg(not(test))]
mod record {
    pub fn leaf(_path: &str) {}
    pub fn container(_path: &str) {}
}

#[cfg(test)]
pub(super) mod record {
    use std::cell::RefCell;
    use std::collections::BTreeSet;

    /// The paths read (where a path ends) and the containers gone into, in this thread.
    #[derive(Debug, Default)]
    pub struct Reads {
        pub leaves: BTreeSet<String>,
        pub containers: BTreeSet<String>,
    }

    thread_local! {
        static READS: RefCell<Option<Reads>> = const { RefCell::new(None) };
    }

    pub fn leaf(path: &str) {
        READS.with(|r| r.borrow_mut().as_mut().map(|r| r.leaves.insert(path.to_string())));
    }

    pub fn container(path: &str) {
        READS.with(|r| r.borrow_mut().as_mut().map(|r| r.containers.insert(path.to_string())));
    }

    /// What `f` read of the config.
    pub fn reads_of<T>(f: impl FnOnce() -> T) -> (T, Reads) {
        READS.with(|r| *r.borrow_mut() = Some(Reads::default()));
        let out = f();
        (out, READS.with(|r| r.borrow_mut().take().unwrap_or_default()))
    }
}
