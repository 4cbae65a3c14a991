use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use wasmtime::component::Resource;

use super::cli::Exit;
use super::wasi::cli::{environment, exit, stderr, stdin, stdout, terminal_stderr, terminal_stdin, terminal_stdout};
use super::wasi::io::poll::{self, HostPollable};
use super::wasi::io::streams::{self, HostInputStream, HostOutputStream};
use super::wasi::random::insecure_seed;
use super::{Sink, StreamError, Wasi};

#[derive(Default)]
struct Written(Mutex<Vec<u8>>);

impl Sink for Written {
    fn write(&self, bytes: &[u8]) {
        self.0.lock().unwrap().extend_from_slice(bytes);
    }
}

impl Written {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

fn capturing() -> (Wasi, Arc<Written>, Arc<Written>) {
    let (out, err) = (Arc::new(Written::default()), Arc::new(Written::default()));
    (Wasi::with_output(out.clone(), err.clone()), out, err)
}

fn is_trap<T>(result: Result<T, StreamError>) -> bool {
    matches!(result, Err(StreamError::Trap(_)))
}

fn is_closed<T>(result: Result<T, StreamError>) -> bool {
    matches!(result, Err(StreamError::Closed))
}

#[test]
fn stdout_and_stderr_reach_their_sinks_as_written() {
    let (mut wasi, out, err) = capturing();
    let o = stdout::Host::get_stdout(&mut wasi).unwrap();
    let e = stderr::Host::get_stderr(&mut wasi).unwrap();
    let permit = wasi.check_write(Resource::new_borrow(o.rep())).ok().unwrap();
    assert!(permit >= 4096, "{permit}");
    assert!(wasi.write(Resource::new_borrow(o.rep()), b"hello ".to_vec()).is_ok());
    assert!(wasi.blocking_write_and_flush(Resource::new_borrow(o.rep()), "wörld\n".as_bytes().to_vec()).is_ok());
    assert!(wasi.blocking_flush(Resource::new_borrow(o.rep())).is_ok());
    assert!(wasi.write(Resource::new_borrow(e.rep()), b"panicked at".to_vec()).is_ok());
    assert!(wasi.write_zeroes(Resource::new_borrow(e.rep()), 2).is_ok());
    assert_eq!(out.text(), "hello wörld\n");
    assert_eq!(err.text(), "panicked at\0\0");
}

#[test]
fn output_without_a_sink_is_dropped() {
    let mut wasi = Wasi::silent();
    let o = stdout::Host::get_stdout(&mut wasi).unwrap();
    assert!(wasi.write(o, b"nowhere".to_vec()).is_ok());
}

#[test]
fn writing_past_the_permit_traps_without_allocating_it() {
    let (mut wasi, out, _) = capturing();
    let o = stdout::Host::get_stdout(&mut wasi).unwrap();
    let permit = wasi.check_write(Resource::new_borrow(o.rep())).ok().unwrap();
    assert!(is_trap(wasi.write(Resource::new_borrow(o.rep()), vec![b'x'; permit as usize + 1])));
    assert!(is_trap(wasi.blocking_write_and_flush(Resource::new_borrow(o.rep()), vec![b'x'; 4097])));
    assert!(is_trap(wasi.write_zeroes(Resource::new_borrow(o.rep()), u64::MAX)));
    assert!(is_trap(wasi.blocking_write_zeroes_and_flush(Resource::new_borrow(o.rep()), 4097)));
    assert_eq!(out.text(), "", "nothing of a refused write is kept");
}

#[test]
fn stdin_is_closed_and_splicing_from_it_moves_nothing() {
    let (mut wasi, out, _) = capturing();
    let i = stdin::Host::get_stdin(&mut wasi).unwrap();
    assert!(is_closed(wasi.read(Resource::new_borrow(i.rep()), 10)));
    assert!(is_closed(wasi.blocking_read(Resource::new_borrow(i.rep()), 10)));
    assert!(is_closed(wasi.skip(Resource::new_borrow(i.rep()), 10)));
    assert!(is_closed(wasi.blocking_skip(Resource::new_borrow(i.rep()), 10)));
    let o = stdout::Host::get_stdout(&mut wasi).unwrap();
    assert!(is_closed(wasi.blocking_splice(o, i, 10)));
    assert_eq!(out.text(), "");
    // A closed stream is the WIT's `closed`, not a trap.
    assert!(matches!(streams::Host::convert_stream_error(&mut wasi, StreamError::Closed), Ok(streams::StreamError::Closed)));
}

#[test]
fn nothing_is_granted_by_the_environment_or_terminals() {
    let mut wasi = Wasi::silent();
    assert!(environment::Host::get_environment(&mut wasi).unwrap().is_empty());
    assert!(environment::Host::get_arguments(&mut wasi).unwrap().is_empty());
    assert_eq!(environment::Host::initial_cwd(&mut wasi).unwrap(), None);
    assert!(terminal_stdin::Host::get_terminal_stdin(&mut wasi).unwrap().is_none());
    assert!(terminal_stdout::Host::get_terminal_stdout(&mut wasi).unwrap().is_none());
    assert!(terminal_stderr::Host::get_terminal_stderr(&mut wasi).unwrap().is_none());
}

#[test]
fn pollables_are_ready_and_an_empty_poll_traps() {
    let mut wasi = Wasi::silent();
    let o = stdout::Host::get_stdout(&mut wasi).unwrap();
    let p = HostOutputStream::subscribe(&mut wasi, o).unwrap();
    assert!(wasi.ready(Resource::new_borrow(p.rep())).unwrap());
    assert!(wasi.block(Resource::new_borrow(p.rep())).is_ok());
    let all = poll::Host::poll(&mut wasi, vec![Resource::new_borrow(p.rep()), Resource::new_borrow(p.rep())]).unwrap();
    assert_eq!(all, [0, 1]);
    assert!(poll::Host::poll(&mut wasi, Vec::new()).is_err());
}

#[test]
fn exit_ends_the_call_with_its_status() {
    let mut wasi = Wasi::silent();
    let code = |e: wasmtime::Error| e.downcast_ref::<Exit>().map(|exit| exit.to_string());
    assert_eq!(code(exit::Host::exit(&mut wasi, Err(())).unwrap_err()).as_deref(), Some("the component exited (status 1)"));
    assert_eq!(code(exit::Host::exit(&mut wasi, Ok(())).unwrap_err()).as_deref(), Some("the component exited (status 0)"));
    assert_eq!(code(exit::Host::exit_with_code(&mut wasi, 7).unwrap_err()).as_deref(), Some("the component exited (status 7)"));
}

#[test]
fn the_hash_seed_differs_between_calls() {
    let mut wasi = Wasi::silent();
    let seeds: BTreeSet<(u64, u64)> = (0..8).map(|_| insecure_seed::Host::insecure_seed(&mut wasi).unwrap()).collect();
    assert_eq!(seeds.len(), 8);
}

/// The WASI interfaces a component imports, without their versions.
fn wasi_imports(component: &[u8]) -> BTreeSet<String> {
    crate::sandbox::world_names(component)
        .imports
        .iter()
        .filter(|name| name.starts_with("wasi:"))
        .map(|name| {
            let (interface, version) = name.split_once('@').expect("a versioned WASI import");
            assert!(version.starts_with("0.2."), "{name}: only WASI 0.2.x is answered");
            interface.to_string()
        })
        .collect()
}

/// What a component of this project can reach of WASI (SECURITY.md): no more than what
/// std's runtime imports, all of it answered here; the wire alone also gets the hash seed.
/// The lists are the ones the plugin's build checks its components against.
#[test]
fn the_built_components_import_only_the_std_runtime() {
    let lists: serde_json::Value = serde_json::from_str(include_str!("../../../wit/component-imports.json")).unwrap();
    let list = |name: &str| -> BTreeSet<String> {
        lists[name].as_array().unwrap().iter().map(|i| i.as_str().unwrap().to_string()).filter(|i| i.starts_with("wasi:")).collect()
    };
    let std_runtime = list("wasi");
    assert!(std_runtime.contains("wasi:cli/stderr") && !std_runtime.iter().any(|i| i.contains("filesystem")), "{std_runtime:?}");
    let guarded = include_bytes!(env!("SESSION_TOOLS_GUARDED_COMPONENT"));
    for (name, component) in [("the tools", crate::COMPONENT), ("the guarded tools", guarded)] {
        let imports = wasi_imports(component);
        assert!(imports.is_subset(&std_runtime), "{name}: {:?}", imports.difference(&std_runtime).collect::<Vec<_>>());
        assert!(imports.contains("wasi:cli/stderr"), "{name}: {imports:?}");
    }
    let mut wire = std_runtime.clone();
    wire.extend(list("wire"));
    assert_eq!(wire.len(), std_runtime.len() + 1, "the wire's one exception: std's hash-map seed");
    let imports = wasi_imports(crate::WIRE_COMPONENT);
    assert!(imports.is_subset(&wire), "the wire: {:?}", imports.difference(&wire).collect::<Vec<_>>());
}
