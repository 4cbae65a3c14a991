//! The OpenClaw plugin (`plugin/`): the very component the host embeds, transpiled by jco and
//! run in Node, passes the plugin's own tests (`node --test`: the sandbox of each agent's
//! instance, the N15 guard in its gateway bridge, the wire conversions, a stale-transpile
//! check) and every conformance case (`node plugin/conformance.mjs`), as the Rust host does.
//!
//! Needs Node 22 (installed from the npm registry into the OpenClaw test cache by
//! [`session_tools_tests::openclaw::install_node`]; no OpenClaw release) and, when `plugin/node_modules` is missing,
//! `npm` and the npm registry once for `npm ci`. A missing prerequisite fails the test with
//! what is missing; nothing is skipped.

#![forbid(unsafe_code)]

use std::sync::Mutex;

use session_tools_tests::plugin::{command, count, plugin_dir, run, setup, Ran, Setup};

/// The plugin's runs one at a time: its tests measure CPU deadlines.
static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn the_plugin_passes_its_node_tests() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let setup = setup();
    let mut tests: Vec<String> = std::fs::read_dir(plugin_dir().join("test"))
        .expect("reading plugin/test")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".test.mjs"))
        .map(|n| format!("test/{n}"))
        .collect();
    tests.sort();
    assert!(!tests.is_empty(), "no plugin/test/*.test.mjs");
    let mut args = vec!["--test", "--test-concurrency=1"];
    args.extend(tests.iter().map(String::as_str));
    let ran = run(&mut command(setup, &setup.node, &args), "node --test in plugin/").unwrap_or_else(|e| panic!("{e}"));
    let (pass, fail) = (count(&ran.stdout, "# pass "), count(&ran.stdout, "# fail "));
    eprintln!("[plugin] node --test: {pass:?} passed, {fail:?} failed in {:.1} s", ran.elapsed.as_secs_f64());
    assert!(
        ran.success && fail == Some(0) && pass.is_some_and(|n| n > 0),
        "node --test in plugin/ failed ({})\n{}",
        ran.status,
        ran.shown()
    );
    assert_eq!(count(&ran.stdout, "# tests "), pass, "every test ran and passed\n{}", ran.shown());
}

fn conformance(setup: &Setup, dir: &str) -> (usize, Ran) {
    let cases = std::fs::read_dir(plugin_dir().join(dir))
        .unwrap_or_else(|e| panic!("reading {dir}: {e}"))
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json")))
        .count();
    let ran = run(&mut command(setup, &setup.node, &["conformance.mjs", dir]), "node conformance.mjs").unwrap_or_else(|e| panic!("{e}"));
    (cases, ran)
}

#[test]
fn every_conformance_case_passes_in_node() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let setup = setup();
    for dir in ["../tests/conformance/cases", "../tests/conformance/own-cases"] {
        let (cases, ran) = conformance(setup, dir);
        let last = ran.stdout.lines().last().unwrap_or("").to_string();
        eprintln!("[plugin] node conformance.mjs {dir}: {last} in {:.1} s", ran.elapsed.as_secs_f64());
        assert!(cases > 0, "no cases in {dir}");
        assert_eq!(last, format!("{cases} passed, 0 failed"), "node conformance.mjs {dir} ({})\n{}", ran.status, ran.shown());
        assert!(ran.success, "node conformance.mjs {dir} exited with {}\n{}", ran.status, ran.shown());
    }
}
