//! (Filled in by the hostile-guest work: builds the test-only hostile component.)

fn main() {}
