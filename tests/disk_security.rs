//! What the host keeps on disk, against the other users of the machine
//! (docs/security-model.md, "On disk"): the compiled-component cache cannot be planted or poisoned,
//! every file the host creates is private from its first byte, and transcripts and the
//! outbox stay inside the state directory.
//!
//! Tests that act as another user (uid 65534) need root: run as anyone else they fail,
//! saying so (CI runs as root).

#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use session_tools_host::config::DeploymentConfig;
use session_tools_host::gateway::embedded::{EmbeddedGateway, Patch};
use session_tools_host::gateway::live::LiveGateway;
use session_tools_host::gateway::{Gateway, HistoryParams, SendParams};
use session_tools_host::{CacheOutcome, Caller, EngineOptions, Limits, Runtime, ServiceBuilder};
use session_tools_tests::{copy_dir, engine_options, sample_state};

/// The other user: `nobody`.
const OTHER_USER: u32 = 65534;

/// The user this process creates files as.
fn euid() -> u32 {
    let probe = tempfile::tempdir().unwrap();
    std::fs::metadata(probe.path()).unwrap().uid()
}

fn require_root(what: &str) {
    assert_eq!(euid(), 0, "{what} acts as another user (uid {OTHER_USER}), which needs root: run this test as root (CI does)");
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().mode() & 0o7777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn mkdir(path: &Path, mode: u32) {
    std::fs::create_dir_all(path).unwrap();
    chmod(path, mode);
}

/// Every file and directory under `dir` (not following links), with its bytes for files.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            out.insert(path.clone(), None);
            out.extend(snapshot(&path));
        } else {
            out.insert(path.clone(), std::fs::read(&path).ok());
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The compiled-component cache
// ---------------------------------------------------------------------------------------

/// Loads the real component with its cache in `dir`; answers what the cache did.
fn load(dir: &Path) -> CacheOutcome {
    let options = EngineOptions::default().with_pooling(false).with_pool_instances(8).with_cache_dir(Some(dir.to_path_buf()));
    let runtime =
        Runtime::new(session_tools_host::COMPONENT, &options, &Limits::default()).expect("the component loads whatever the cache holds");
    runtime.cache_outcome().clone()
}

/// The `.cwasm` files of a cache directory.
fn cached_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "cwasm")).collect();
    files.sort();
    files
}

/// A sound cache file, as the host writes it: its name (the same for every user of this
/// build) and its bytes. Made once.
fn good_cache() -> &'static (String, Vec<u8>) {
    static GOOD: OnceLock<(String, Vec<u8>)> = OnceLock::new();
    GOOD.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        assert_eq!(load(&cache), CacheOutcome::Filled);
        let file = cached_files(&cache).pop().expect("a cache file");
        (file.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&file).unwrap())
    })
}

/// Puts a sound cache file into `dir` (made with `dir_mode`), mode 0600; answers its path.
fn plant(dir: &Path, dir_mode: u32) -> PathBuf {
    mkdir(dir, dir_mode);
    let (name, bytes) = good_cache();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    chmod(&path, 0o600);
    path
}

#[track_caller]
fn assert_refused(outcome: CacheOutcome, why: &str) {
    match &outcome {
        CacheOutcome::Refused(reason) if reason.contains(why) => {
            let notice = outcome.notice().unwrap();
            assert!(notice.contains("not used") && notice.contains(why), "{notice}");
        }
        other => panic!("expected the cache to be refused because {why:?}, got {other:?}"),
    }
}

#[test]
fn a_cache_is_made_private_and_then_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("a/cache");
    assert_eq!(load(&cache), CacheOutcome::Filled);
    let files = cached_files(&cache);
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!((mode(&cache), mode(&dir.path().join("a")), mode(&files[0])), (0o700, 0o700, 0o600));
    let bytes = std::fs::read(&files[0]).unwrap();
    assert_eq!(&bytes[bytes.len() - 40..bytes.len() - 32], b"stcwasm1", "the file ends with its format and digest");
    // Loaded, the file checked is what wasmtime maps (its code shared from the page cache).
    let options = EngineOptions::default().with_pooling(false).with_pool_instances(8).with_cache_dir(Some(cache.clone()));
    let runtime = Runtime::new(session_tools_host::COMPONENT, &options, &Limits::default()).unwrap();
    assert_eq!(runtime.cache_outcome(), &CacheOutcome::Loaded);
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    assert!(maps.contains(files[0].to_str().unwrap()), "the cache file is not mapped");
    assert_eq!(CacheOutcome::Loaded.notice(), None);
}

#[test]
fn a_damaged_cache_file_is_replaced_and_never_run() {
    let (_, good) = good_cache();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let path = plant(&cache, 0o700);
    // Code bytes flipped (the process used to crash on them at every start), the digest
    // flipped, the file cut short, a file of the format before digests (wasmtime's bytes
    // alone).
    let flip = |from: usize, len: usize| {
        let mut bytes = good.clone();
        for b in &mut bytes[from..from + len] {
            *b ^= 0xff;
        }
        bytes
    };
    let damages: [(&str, Vec<u8>, &str); 4] = [
        ("flipped code bytes", flip(good.len() / 2, 64), "does not match"),
        ("a flipped digest", flip(good.len() - 8, 8), "does not match"),
        ("cut short", good[..100].to_vec(), "not a cache file"),
        ("no trailer", good[..good.len() - 40].to_vec(), "not a cache file"),
    ];
    for (what, bytes, why) in damages {
        std::fs::write(&path, &bytes).unwrap();
        match load(&cache) {
            CacheOutcome::Replaced(reason) => assert!(reason.contains(why), "{what}: {reason}"),
            other => panic!("{what}: expected the file to be replaced, got {other:?}"),
        }
        assert_eq!(&std::fs::read(&path).unwrap(), good, "{what}: the file was replaced by a sound one");
        assert_eq!(cached_files(&cache).len(), 1);
        assert_eq!(load(&cache), CacheOutcome::Loaded, "{what}");
    }
}

#[test]
fn a_cache_others_can_write_or_that_is_a_link_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    // A shared directory anyone can write (the file name is the same for every user).
    for (dir_mode, why) in [(0o777, "can be written by other users (mode 777)"), (0o1777, "mode 1777"), (0o775, "mode 775")] {
        let cache = dir.path().join(format!("shared-{dir_mode:o}"));
        let planted = plant(&cache, dir_mode);
        let before = snapshot(&cache);
        assert_refused(load(&cache), why);
        assert_eq!(snapshot(&cache), before, "a refused cache is neither replaced nor written");
        assert!(planted.exists());
    }
    // A file of ours others can write.
    let cache = dir.path().join("writable-file");
    let planted = plant(&cache, 0o700);
    chmod(&planted, 0o666);
    let before = snapshot(&cache);
    assert_refused(load(&cache), "can be written by other users (mode 666)");
    assert_eq!(snapshot(&cache), before);
    // The directory a link to a sound cache, the file a link to a sound file, the file with
    // a second (hard) link.
    let sound = dir.path().join("sound");
    let sound_file = plant(&sound, 0o700);
    let linked_dir = dir.path().join("linked-dir");
    std::os::unix::fs::symlink(&sound, &linked_dir).unwrap();
    assert_refused(load(&linked_dir), "is a symbolic link");
    let cache = dir.path().join("linked-file");
    mkdir(&cache, 0o700);
    std::os::unix::fs::symlink(&sound_file, cache.join(sound_file.file_name().unwrap())).unwrap();
    assert_refused(load(&cache), "is a symbolic link");
    // The sound cache itself is used; with a second link to its file, from anywhere, not.
    assert_eq!(load(&sound), CacheOutcome::Loaded);
    let cache = dir.path().join("hard-linked");
    mkdir(&cache, 0o700);
    let second = cache.join(sound_file.file_name().unwrap());
    std::fs::hard_link(&sound_file, &second).unwrap();
    assert_refused(load(&cache), "has 2 hard links");
    assert_refused(load(&sound), "has 2 hard links");
    std::fs::remove_file(&second).unwrap();
    assert_eq!(load(&sound), CacheOutcome::Loaded);
}

#[test]
fn a_cache_planted_by_another_user_is_not_used() {
    require_root("planting a cache file");
    let dir = tempfile::tempdir().unwrap();
    let chown = |p: &Path| std::os::unix::fs::chown(p, Some(OTHER_USER), Some(OTHER_USER)).unwrap();
    // A directory another user made for everyone (SESSION_TOOLS_CACHE_DIR pointing at it),
    // with their file in it.
    let theirs = dir.path().join("pre-created");
    let planted = plant(&theirs, 0o755);
    chown(&theirs);
    chown(&planted);
    let before = snapshot(&theirs);
    assert_refused(load(&theirs), &format!("belongs to uid {OTHER_USER}"));
    assert_eq!(snapshot(&theirs), before);
    // Their file in our own directory.
    let ours = dir.path().join("ours");
    let planted = plant(&ours, 0o700);
    chown(&planted);
    let before = snapshot(&ours);
    assert_refused(load(&ours), &format!("{} belongs to uid {OTHER_USER}", planted.display()));
    assert_eq!(snapshot(&ours), before, "the planted file is left for its owner to explain");
}

// ---------------------------------------------------------------------------------------
// Private from the first byte
// ---------------------------------------------------------------------------------------

/// The places one round of writes uses.
struct Places {
    state: PathBuf,
    device: PathBuf,
}

impl Places {
    fn at(root: &Path, name: &str) -> Places {
        Places { state: root.join(name).join("state"), device: root.join(name).join("config/session-tools/device.json") }
    }

    /// Makes the directories the host writes in, open to everyone, so only the files' own
    /// modes keep another user out.
    fn open_up(&self) {
        let top = self.state.parent().unwrap();
        for dir in [
            self.state.join("agents/main/sessions"),
            self.state.join("session-tools/jobs/calls"),
            self.state.join("session-tools/runs"),
            self.device.parent().unwrap().to_path_buf(),
        ] {
            std::fs::create_dir_all(&dir).unwrap();
            for at in dir.ancestors().take_while(|a| a.starts_with(top)) {
                chmod(at, 0o755);
            }
        }
    }
}

/// One runtime for the services of the privacy tests.
fn shared_runtime() -> Arc<Runtime> {
    static RUNTIME: OnceLock<Arc<Runtime>> = OnceLock::new();
    RUNTIME.get_or_init(|| Arc::new(Runtime::new(session_tools_host::COMPONENT, &engine_options(), &Limits::default()).unwrap())).clone()
}

/// Has the host write one of each kind of file it writes (a store, transcripts, their
/// locks, the outbox, the runs registry, job files, the device identity) into new places.
/// Answers the gateway, whose runs may still be writing.
fn write_one_of_each(places: &Places, round: usize) -> Arc<EmbeddedGateway> {
    let gateway = EmbeddedGateway::builder(&places.state)
        .with_config(DeploymentConfig::empty())
        .with_runtime(Arc::new(session_tools_host::gateway::embedded::runtime::EchoRuntime))
        .create_state_dir(true)
        .open()
        .expect("the gateway");
    let found = gateway
        .patch("agent:main:main", &Patch { label: Some(Some(format!("secret label {round}"))), ..Default::default() })
        .expect("a store write");
    gateway.append(&found, &json!({"role": "user", "content": [{"type": "text", "text": "a secret message"}]})).expect("an append");
    let send = SendParams {
        to: "user:1".into(),
        message: "a secret delivery".into(),
        channel: Some("discord".into()),
        account_id: None,
        idempotency_key: format!("k{round}"),
    };
    gateway.send(&send).expect("a delivery");
    // Jobs, more sessions, transcripts and runs: a spawn whose flow waits in the job store.
    let service = ServiceBuilder::over_embedded(&gateway).with_runtime(shared_runtime()).build().expect("the service");
    let caller = Caller { agent_session_key: Some("agent:main:main".into()), ..Caller::default() };
    let spawned = service.call(&caller, "sessions_spawn", r#"{"task": "a secret task"}"#).expect("a spawn");
    assert!(spawned.contains("accepted"), "{spawned}");
    // The device identity is made before the connection is tried (nothing listens there).
    let device = LiveGateway::builder("ws://127.0.0.1:9")
        .with_password("p")
        .with_device_identity(&places.device)
        .with_connect_timeout(Duration::from_millis(200))
        .open();
    assert!(device.is_err(), "nothing listens on port 9");
    assert!(places.device.exists(), "the device identity was made");
    gateway
}

#[test]
fn every_file_and_directory_the_host_creates_is_private() {
    let root = tempfile::tempdir().unwrap();
    let places = Places::at(root.path(), "fresh");
    let gateway = write_one_of_each(&places, 0);
    assert!(gateway.wait_runs_idle(Duration::from_secs(30)));
    assert_eq!(load(&root.path().join("fresh/cache")), CacheOutcome::Filled);
    let mut checked = (0, 0);
    let mut wrong = Vec::new();
    for (path, contents) in snapshot(root.path()) {
        let expected = if contents.is_some() { 0o600 } else { 0o700 };
        if contents.is_some() {
            checked.0 += 1
        } else {
            checked.1 += 1
        }
        if mode(&path) != expected {
            wrong.push(format!("{} is {:o}, not {expected:o}", path.display(), mode(&path)));
        }
    }
    assert!(wrong.is_empty(), "not private:\n{}", wrong.join("\n"));
    assert!(checked.0 >= 8 && checked.1 >= 6, "files and directories checked: {checked:?}");
}

/// What a file is, by its path.
fn kind_of(path: &str) -> &'static str {
    if path.ends_with("control.txt") {
        "control"
    } else if path.contains(".cwasm") {
        "compiled cache"
    } else if path.contains("device.json") {
        "device identity"
    } else if path.contains("outbox.jsonl") {
        "outbox"
    } else if path.contains("session-tools/jobs/") {
        "job"
    } else if path.contains("session-tools/runs/") || path.contains("runs.json") {
        "runs registry"
    } else if path.contains("sessions.json") {
        "store"
    } else if path.contains(".jsonl") {
        "transcript"
    } else {
        "other"
    }
}

#[test]
fn another_user_opens_none_of_the_files_the_host_writes_while_it_writes_them() {
    require_root("reading as another user");
    let root = tempfile::tempdir().unwrap();
    chmod(root.path(), 0o755);
    // The reader must open this one: it proves it runs as another user who can see here.
    let control = root.path().join("control.txt");
    std::fs::write(&control, "readable").unwrap();
    chmod(&control, 0o644);
    let mut reader = std::process::Command::new(env!("CARGO_BIN_EXE_peeker"))
        .arg(root.path())
        .uid(OTHER_USER)
        .gid(OTHER_USER)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("starting the reader");
    let writing = Duration::from_secs(3);
    let deadline = Instant::now() + writing;
    let cache_root = root.path().to_path_buf();
    let caches = std::thread::spawn(move || {
        let mut made = 0;
        while made == 0 || Instant::now() < deadline {
            let dir = cache_root.join(format!("cache{made}"));
            mkdir(&dir, 0o755);
            assert_eq!(load(&dir), CacheOutcome::Filled);
            made += 1;
        }
        made
    });
    let mut gateways = Vec::new();
    while gateways.is_empty() || Instant::now() < deadline {
        let places = Places::at(root.path(), &format!("s{}", gateways.len()));
        places.open_up();
        gateways.push(write_one_of_each(&places, gateways.len()));
    }
    let caches = caches.join().unwrap();
    for gateway in &gateways {
        assert!(gateway.wait_runs_idle(Duration::from_secs(30)));
    }
    drop(reader.stdin.take());
    let output = reader.wait_with_output().unwrap();
    assert!(output.status.success(), "the reader failed: {output:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut seen: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
    for (path, times) in report["seen"].as_object().unwrap() {
        let entry = seen.entry(kind_of(path)).or_default();
        entry.0 += 1;
        entry.1 += times.as_u64().unwrap();
    }
    let opened: Vec<&String> = report["opened"].as_object().unwrap().keys().filter(|p| kind_of(p) != "control").collect();
    eprintln!(
        "{} rounds of writes and {caches} caches in {writing:?}; the reader made {} rounds; files seen (distinct, open attempts) by kind: {seen:?}; opened: {}",
        gateways.len(),
        report["rounds"],
        opened.len()
    );
    assert!(report["opened"].get(control.to_str().unwrap()).is_some(), "the reader could not open the control file: {report}");
    assert!(opened.is_empty(), "another user opened: {opened:?}");
    for kind in ["compiled cache", "device identity", "outbox", "job", "runs registry", "store", "transcript"] {
        assert!(seen.get(kind).is_some_and(|(files, _)| *files > 0), "the reader never saw a {kind} file: {seen:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Paths stay inside the state directory
// ---------------------------------------------------------------------------------------

const TELEGRAM: &str = "agent:main:telegram:group:-1001234567890";
const TELEGRAM_ID: &str = "a9b8c7d6-e5f4-4a3b-8c2d-1e0f9a8b7c6d";

/// A copy of the sample state beside a directory outside it holding a secret transcript.
struct World {
    _root: tempfile::TempDir,
    state: PathBuf,
    outside: PathBuf,
}

const SECRET: &str = "the secret outside the state directory";

fn world() -> World {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    copy_dir(&sample_state(), &state);
    let outside = root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let transcript = format!(
        "{}\n{}\n",
        json!({"type": "session", "version": 3, "id": "x", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}),
        json!({"type": "message", "id": "m1", "parentId": null, "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": "user", "content": SECRET}})
    );
    std::fs::write(outside.join("x.jsonl"), &transcript).unwrap();
    World { _root: root, state, outside }
}

impl World {
    fn sessions(&self) -> PathBuf {
        self.state.join("agents/main/sessions")
    }

    fn gateway(&self) -> Arc<EmbeddedGateway> {
        EmbeddedGateway::builder(&self.state).open().expect("the gateway")
    }

    fn set_session_file(&self, key: &str, file: &str) {
        let path = self.sessions().join("sessions.json");
        let mut store: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        store[key]["sessionFile"] = json!(file);
        std::fs::write(&path, serde_json::to_string_pretty(&store).unwrap()).unwrap();
    }
}

fn history(gateway: &EmbeddedGateway, key: &str) -> Result<String, String> {
    let params = HistoryParams { session_key: key.into(), limit: Some(100) };
    gateway.chat_history(&params).map(|h| h.messages.iter().map(|m| m.json.clone()).collect::<Vec<_>>().join("\n")).map_err(|e| e.message)
}

fn append(gateway: &EmbeddedGateway, key: &str, text: &str) -> Result<(), String> {
    let found = gateway.find(key).unwrap().expect("the session exists");
    gateway.append(&found, &json!({"role": "assistant", "content": [{"type": "text", "text": text}]})).map_err(|e| e.message)
}

#[test]
fn a_linked_transcript_is_neither_read_nor_written_through() {
    let w = world();
    let before = snapshot(&w.outside);
    let transcript = w.sessions().join(format!("{TELEGRAM_ID}.jsonl"));
    std::fs::remove_file(&transcript).unwrap();
    std::os::unix::fs::symlink(w.outside.join("x.jsonl"), &transcript).unwrap();
    let gateway = w.gateway();
    let error = history(&gateway, TELEGRAM).unwrap_err();
    assert!(error.contains("is a symbolic link") && !error.contains(SECRET), "{error}");
    let error = append(&gateway, TELEGRAM, "through the link").unwrap_err();
    assert!(error.contains("is a symbolic link"), "{error}");
    // Deleting archives the link itself, in place.
    let deleted = gateway.delete(TELEGRAM, true).unwrap();
    assert_eq!(deleted.archived.len(), 1);
    assert!(deleted.archived[0].starts_with(w.sessions()), "{:?}", deleted.archived);
    assert!(std::fs::symlink_metadata(&deleted.archived[0]).unwrap().file_type().is_symlink());
    assert_eq!(snapshot(&w.outside), before, "nothing outside changed");
}

#[test]
fn a_dangling_link_creates_nothing_outside() {
    let w = world();
    let transcript = w.sessions().join(format!("{TELEGRAM_ID}.jsonl"));
    std::fs::remove_file(&transcript).unwrap();
    std::os::unix::fs::symlink(w.outside.join("new.jsonl"), &transcript).unwrap();
    let gateway = w.gateway();
    let error = append(&gateway, TELEGRAM, "through a dangling link").unwrap_err();
    assert!(error.contains("is a symbolic link"), "{error}");
    let error = history(&gateway, TELEGRAM).unwrap_err();
    assert!(error.contains("is a symbolic link"), "{error}");
    // A linked directory on the way of a sessionFile.
    std::os::unix::fs::symlink(&w.outside, w.sessions().join("linked")).unwrap();
    w.set_session_file("agent:main:main", &w.sessions().join("linked/y.jsonl").display().to_string());
    let error = append(&gateway, "agent:main:main", "through a linked directory").unwrap_err();
    assert!(error.contains("linked is a symbolic link"), "{error}");
    let names: Vec<_> = std::fs::read_dir(&w.outside).unwrap().flatten().map(|e| e.file_name()).collect();
    assert_eq!(names, ["x.jsonl"], "nothing was created outside");
}

#[test]
fn a_session_file_outside_the_session_s_directory_is_not_used() {
    let w = world();
    let before = snapshot(&w.outside);
    // Inside the state directory but outside the store's directory, then outside the state
    // directory by a relative path and by an absolute one.
    std::fs::create_dir_all(w.state.join("agents/etc")).unwrap();
    std::fs::copy(w.outside.join("x.jsonl"), w.state.join("agents/etc/x.jsonl")).unwrap();
    let elsewhere = w.outside.join("x.jsonl").display().to_string();
    let own = w.sessions().join(format!("{TELEGRAM_ID}.jsonl"));
    for file in ["../../etc/x.jsonl", "../../../../outside/x.jsonl", elsewhere.as_str()] {
        w.set_session_file(TELEGRAM, file);
        let gateway = w.gateway();
        let read = history(&gateway, TELEGRAM).unwrap();
        assert!(!read.contains(SECRET) && !read.is_empty(), "{file}: the session's own transcript is read: {read}");
        let lines = std::fs::read_to_string(&own).unwrap().lines().count();
        append(&gateway, TELEGRAM, &format!("appended with sessionFile {file}")).unwrap();
        assert_eq!(std::fs::read_to_string(&own).unwrap().lines().count(), lines + 1, "{file}: appended to the session's own transcript");
    }
    assert!(std::fs::read_to_string(w.state.join("agents/etc/x.jsonl")).unwrap().lines().count() == 2);
    let deleted = w.gateway().delete(TELEGRAM, true).unwrap();
    assert_eq!(deleted.archived.len(), 1, "{:?}", deleted.archived);
    assert!(deleted.archived[0].starts_with(w.sessions()));
    assert_eq!(snapshot(&w.outside), before, "nothing outside was read into an answer or changed");
}

#[test]
fn a_session_file_inside_the_session_s_directory_is_still_used() {
    let w = world();
    // A thread fork's file, named by sessionFile, and the same file through another spelling
    // of the state directory (a link to it from outside).
    let fork = w.sessions().join("2026-01-01T00-00-00-000Z_fork.jsonl");
    std::fs::copy(w.outside.join("x.jsonl"), &fork).unwrap();
    let alias = w.outside.join("alias");
    std::os::unix::fs::symlink(&w.state, &alias).unwrap();
    for file in [fork.display().to_string(), alias.join("agents/main/sessions").join(fork.file_name().unwrap()).display().to_string()] {
        w.set_session_file(TELEGRAM, &file);
        assert!(history(&w.gateway(), TELEGRAM).unwrap().contains(SECRET), "{file}: the fork is read");
    }
}

/// Opening the gateway over `w` fails naming `why`, and nothing outside changed.
#[track_caller]
fn assert_gateway_refused(w: &World, why: &str, before: &BTreeMap<PathBuf, Option<Vec<u8>>>) {
    let error = match EmbeddedGateway::builder(&w.state).open() {
        Ok(_) => panic!("{why}: the gateway opened"),
        Err(e) => e.to_string(),
    };
    assert!(error.contains(why), "{error}");
    assert_eq!(&snapshot(&w.outside), before, "{why}: nothing outside was changed");
}

#[test]
fn a_linked_outbox_is_refused() {
    let w = world();
    std::fs::write(w.outside.join("outbox.jsonl"), "{\"message\": \"theirs\"}\n").unwrap();
    let before = snapshot(&w.outside);
    let tools = w.state.join("session-tools");
    let outbox = tools.join("outbox.jsonl");
    std::fs::create_dir_all(&tools).unwrap();
    // The file a link, then a dangling link, then the directory a link.
    std::os::unix::fs::symlink(w.outside.join("outbox.jsonl"), &outbox).unwrap();
    assert_gateway_refused(&w, "outbox.jsonl is a symbolic link", &before);
    std::fs::remove_file(&outbox).unwrap();
    std::os::unix::fs::symlink(w.outside.join("new.jsonl"), &outbox).unwrap();
    assert_gateway_refused(&w, "outbox.jsonl is a symbolic link", &before);
    std::fs::remove_dir_all(&tools).unwrap();
    std::os::unix::fs::symlink(&w.outside, &tools).unwrap();
    assert_gateway_refused(&w, "session-tools is a symbolic link", &before);
}
