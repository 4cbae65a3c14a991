//! Files that stay inside a directory: a transcript inside its session store's directory,
//! the outbox inside the state directory (SECURITY.md, "Paths stay inside the state
//! directory").
//!
//! A [`Confined`] file is a root directory and a path below it. The root is trusted (the
//! state directory, or a store directory the config names) and is opened as it is; below
//! it no symbolic link is ever followed: each directory on the way is opened relative to
//! the one before with `O_NOFOLLOW` (`openat`), and so is the file. A link planted inside
//! the state directory, a dangling one included, is an error naming it, and nothing is
//! read, created or renamed outside the root, whatever is swapped meanwhile (the checks are
//! on the descriptors used, not on a path looked at before).

use std::ffi::OsString;
use std::fs::File;
use std::path::{Component, Path, PathBuf};

/// A file inside a root directory, reached from it without following links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confined {
    /// Absolute, `..` resolved.
    root: PathBuf,
    /// Below `root`: plain names only, at least one.
    relative: PathBuf,
}

/// `path` made absolute (from the working directory) with `.` and `..` resolved by their
/// names (`/a/b/..` is `/a`), as `path.resolve` does.
fn normalize(path: &Path) -> PathBuf {
    let path = if path.as_os_str().is_empty() { Path::new(".") } else { path };
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `full` below `base`, when it is strictly below it.
fn below(full: &Path, base: &Path) -> Option<PathBuf> {
    let relative = full.strip_prefix(base).ok()?;
    let plain = relative.components().all(|c| matches!(c, Component::Normal(_)));
    (plain && relative.components().next().is_some()).then(|| relative.to_path_buf())
}

impl Confined {
    /// `path` (absolute, or relative to `dir`) as a file inside `dir`; `None` when it is not
    /// inside, with `..` resolved by name or once both are resolved on disk (another
    /// spelling of the same directory, through a link).
    pub fn inside(dir: &Path, path: &Path) -> Option<Confined> {
        let base = normalize(dir);
        let full = normalize(&base.join(path));
        if let Some(relative) = below(&full, &base) {
            return Some(Confined { root: base, relative });
        }
        let real_dir = std::fs::canonicalize(&base).ok()?;
        let real_parent = std::fs::canonicalize(full.parent()?).ok()?;
        let relative = below(&real_parent.join(full.file_name()?), &real_dir)?;
        Some(Confined { root: real_dir, relative })
    }

    /// The same file reached from `root` when its directory is below `root` (by name): then
    /// no link between `root` and the file is followed either (a sessions directory that is
    /// a link out of the state directory is not used).
    pub fn reached_from(self, root: &Path) -> Confined {
        let root = normalize(root);
        match self.root.strip_prefix(&root) {
            Ok(between) if root != self.root => Confined { relative: between.join(&self.relative), root },
            _ => self,
        }
    }

    /// The file's path, for messages and for what does not open it (its lock's name).
    pub fn path(&self) -> PathBuf {
        self.root.join(&self.relative)
    }

    fn name(&self) -> &std::ffi::OsStr {
        self.relative.file_name().unwrap_or_default()
    }

    /// The path of a file beside this one, named `name`.
    fn sibling(&self, name: &std::ffi::OsStr) -> PathBuf {
        self.path().with_file_name(name)
    }
}

#[cfg(unix)]
mod open {
    use std::os::fd::OwnedFd;

    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    use rustix::io::Errno;

    use super::*;
    use crate::private_files::{create_private_dir, DIR_MODE, FILE_MODE};

    const DIRECTORY: OFlags = OFlags::DIRECTORY.union(OFlags::RDONLY).union(OFlags::CLOEXEC);

    impl Confined {
        /// Why `name` in `dir` (at `path`) could not be opened: a link is named as one.
        fn refused(&self, dir: &OwnedFd, name: &std::ffi::OsStr, path: &Path, errno: Errno) -> std::io::Error {
            let is_link = matches!(errno, Errno::LOOP | Errno::NOTDIR)
                && rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                    .is_ok_and(|s| FileType::from_raw_mode(s.st_mode) == FileType::Symlink);
            if is_link {
                return std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    format!("{} is a symbolic link; links inside {} are not followed", path.display(), self.root.display()),
                );
            }
            errno.into()
        }

        /// The directory the file is in, each directory below the root opened without
        /// following a link (and made, mode 0700, with `create`).
        fn parent(&self, create: bool) -> std::io::Result<OwnedFd> {
            if create {
                create_private_dir(&self.root)?;
            }
            let mut dir = rustix::fs::open(&self.root, DIRECTORY, Mode::empty())?;
            let mut at = self.root.clone();
            let names: Vec<&std::ffi::OsStr> = self.relative.iter().collect();
            for name in &names[..names.len().saturating_sub(1)] {
                at.push(name);
                if create {
                    match rustix::fs::mkdirat(&dir, *name, Mode::from_raw_mode(DIR_MODE)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
                dir = rustix::fs::openat(&dir, *name, DIRECTORY | OFlags::NOFOLLOW, Mode::empty())
                    .map_err(|e| self.refused(&dir, name, &at, e))?;
            }
            Ok(dir)
        }

        fn open_with(&self, flags: OFlags, create: bool) -> std::io::Result<File> {
            let dir = self.parent(create)?;
            let fd = rustix::fs::openat(&dir, self.name(), flags | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::from_raw_mode(FILE_MODE))
                .map_err(|e| self.refused(&dir, self.name(), &self.path(), e))?;
            Ok(File::from(fd))
        }

        /// Opens the file to read.
        pub fn open_read(&self) -> std::io::Result<File> {
            // Linux 5.6+: the whole way in one call that refuses any link on it (history
            // reads are many); a link, an older kernel or any other error: step by step,
            // which names the link.
            #[cfg(target_os = "linux")]
            {
                use rustix::fs::ResolveFlags;
                let root = rustix::fs::open(&self.root, DIRECTORY, Mode::empty())?;
                let resolve = ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
                match rustix::fs::openat2(&root, &self.relative, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty(), resolve) {
                    Ok(fd) => return Ok(File::from(fd)),
                    Err(Errno::NOENT) => return Err(Errno::NOENT.into()),
                    Err(_) => {}
                }
            }
            self.open_with(OFlags::RDONLY, false)
        }

        /// Opens the file to read and append, creating it (mode 0600) and the directories
        /// below the root (mode 0700) when they do not exist.
        pub fn open_append(&self) -> std::io::Result<File> {
            self.open_with(OFlags::RDWR | OFlags::APPEND | OFlags::CREATE, true)
        }

        /// Makes the directories down to the file (mode 0700) where they do not exist.
        pub fn create_dirs(&self) -> std::io::Result<()> {
            self.parent(true).map(drop)
        }

        /// Whether something is at the file's place (a link too, which is then refused when
        /// the file is opened); a directory on the way that cannot be opened counts, so
        /// the open says why.
        pub fn exists(&self) -> bool {
            let found = self.parent(false).and_then(|dir| Ok(rustix::fs::statat(&dir, self.name(), AtFlags::SYMLINK_NOFOLLOW)?));
            !matches!(found, Err(e) if e.kind() == std::io::ErrorKind::NotFound)
        }

        /// Renames the file to `name` in its directory (a link is renamed, not followed);
        /// answers the new path.
        pub fn rename_to(&self, name: OsString) -> std::io::Result<PathBuf> {
            let dir = self.parent(false)?;
            rustix::fs::renameat(&dir, self.name(), &dir, name.as_os_str())?;
            Ok(self.sibling(&name))
        }
    }
}

#[cfg(not(unix))]
mod open {
    //! Without `openat`: the path is checked by name only.
    use super::*;
    use crate::private_files::{create_private_dir, private_options};

    impl Confined {
        pub fn open_read(&self) -> std::io::Result<File> {
            File::open(self.path())
        }

        pub fn open_append(&self) -> std::io::Result<File> {
            self.create_dirs()?;
            private_options().read(true).append(true).create(true).open(self.path())
        }

        pub fn create_dirs(&self) -> std::io::Result<()> {
            create_private_dir(self.path().parent().unwrap_or(&self.root))
        }

        pub fn exists(&self) -> bool {
            std::fs::symlink_metadata(self.path()).is_ok()
        }

        pub fn rename_to(&self, name: OsString) -> std::io::Result<PathBuf> {
            let to = self.sibling(&name);
            std::fs::rename(self.path(), &to)?;
            Ok(to)
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn a_path_is_inside_only_when_it_stays_inside() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("agents/main/sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        let inside = |p: &str| Confined::inside(&sessions, Path::new(p)).map(|c| c.path());
        assert_eq!(inside("s.jsonl"), Some(sessions.join("s.jsonl")));
        assert_eq!(inside("./t/../s.jsonl"), Some(sessions.join("s.jsonl")));
        assert_eq!(inside(sessions.join("x/s.jsonl").to_str().unwrap()), Some(sessions.join("x/s.jsonl")));
        assert_eq!(inside("../../../etc/x.jsonl"), None);
        assert_eq!(inside("/etc/x.jsonl"), None);
        assert_eq!(inside(sessions.join("../sessions2/s.jsonl").to_str().unwrap()), None);
        assert_eq!(inside(""), None);
        assert_eq!(inside("."), None);
        // Another spelling of the directory, through a link outside it, is the same place.
        let alias = dir.path().join("alias");
        std::os::unix::fs::symlink(&sessions, &alias).unwrap();
        let real = std::fs::canonicalize(&sessions).unwrap();
        assert_eq!(inside(alias.join("s.jsonl").to_str().unwrap()), Some(real.join("s.jsonl")));
        // From the state directory, the directories between are on the way.
        let file = Confined::inside(&sessions, Path::new("s.jsonl")).unwrap().reached_from(dir.path());
        assert_eq!(file.relative, Path::new("agents/main/sessions/s.jsonl"));
    }

    #[test]
    fn links_below_the_root_are_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (state, outside) = (dir.path().join("state"), dir.path().join("outside"));
        std::fs::create_dir_all(state.join("sessions")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.jsonl"), "secret").unwrap();
        let file = |rel: &str| Confined::inside(&state, Path::new(rel)).unwrap();

        // A linked file, a linked directory, a dangling link: refused, naming the link.
        std::os::unix::fs::symlink(outside.join("secret.jsonl"), state.join("sessions/a.jsonl")).unwrap();
        std::os::unix::fs::symlink(&outside, state.join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.join("new.jsonl"), state.join("sessions/dangling.jsonl")).unwrap();
        for rel in ["sessions/a.jsonl", "linked/secret.jsonl", "sessions/dangling.jsonl"] {
            let error = file(rel).open_read().unwrap_err();
            assert!(error.to_string().contains("is a symbolic link"), "{rel}: {error}");
            let error = file(rel).open_append().unwrap_err();
            assert!(error.to_string().contains("is a symbolic link"), "{rel}: {error}");
            assert!(file(rel).exists(), "{rel}");
        }
        assert!(file("linked/new/x.jsonl").open_append().is_err());
        assert!(!outside.join("new.jsonl").exists() && !outside.join("new").exists(), "something was created outside");
        assert_eq!(std::fs::read_to_string(outside.join("secret.jsonl")).unwrap(), "secret");

        // A plain file is read and appended to; new directories and files are private.
        let new = file("sessions/deeper/b.jsonl");
        assert!(!new.exists());
        new.open_append().unwrap().write_all(b"line\n").unwrap();
        let mut text = String::new();
        new.open_read().unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "line\n");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(state.join("sessions/deeper")).unwrap().permissions().mode() & 0o777, 0o700);
        assert_eq!(std::fs::metadata(new.path()).unwrap().permissions().mode() & 0o777, 0o600);
        // A rename stays in the file's directory; a link is renamed, not followed.
        let to = file("sessions/a.jsonl").rename_to("a.jsonl.deleted".into()).unwrap();
        assert_eq!(to, state.join("sessions/a.jsonl.deleted"));
        assert!(std::fs::symlink_metadata(&to).unwrap().file_type().is_symlink());
        assert!(outside.join("secret.jsonl").exists());
    }
}
