//! The names of the jobs directory's files: a job's key and a call intent's id are both a
//! file's stem there, so both are checked by the one rule, whoever wrote the file.

/// Whether a key can name a job file or a call intent (what the host assigns, or an older
/// file's stem).
pub(crate) fn valid_key(key: &str) -> bool {
    !key.is_empty() && key.len() <= 128 && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}
