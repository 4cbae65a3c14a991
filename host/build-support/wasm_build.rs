// Shared by the build scripts of `host/` (the guest component) and `tests/` (the hostile
// test component), with `include!`: one way to run a nested cargo for `wasm32-wasip2`.

/// Builds a component with a nested `cargo build --release --target wasm32-wasip2`, run in
/// `dir` with the extra `args`, into `target_dir` (a target directory of its own: the outer
/// cargo holds the lock on `target/`). Answers the path of `<artifact>.wasm`; panics with
/// the fix when the build fails, since a build script has no other way to report.
fn build_wasm_component(what: &str, dir: &std::path::Path, args: &[&std::ffi::OsStr], target_dir: &std::path::Path, artifact: &str) -> std::path::PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(cargo);
    command.current_dir(dir).args(["build", "--quiet", "--release", "--target", "wasm32-wasip2"]).args(args).arg("--target-dir").arg(target_dir);
    // Flags and settings meant for the host build must not leak into the wasm build.
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_TARGET_DIR",
        "CARGO_MAKEFLAGS",
        "MAKEFLAGS",
        "MFLAGS",
    ] {
        command.env_remove(var);
    }
    let status = command.status().unwrap_or_else(|e| panic!("running cargo to build the {what}: {e}"));
    if !status.success() {
        panic!(
            "building the {what} failed (status {status}).\n\
             Is the wasm target installed? Run: rustup target add wasm32-wasip2"
        );
    }
    let wasm = target_dir.join(format!("wasm32-wasip2/release/{artifact}.wasm"));
    assert!(wasm.is_file(), "the {what} build did not produce {}", wasm.display());
    wasm
}
