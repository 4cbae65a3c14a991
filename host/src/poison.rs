//! What a panic leaves behind in a lock: a lock poisoned by a panic in one of
//! its critical sections is never used with what that section may have left half-done.
//! Each lock says which of two rules it follows, by the function it is locked with:
//!
//! - [`lock_rebuilt`] / [`lock_or`]: the state is a copy of what lives elsewhere (the disk,
//!   the gateway) or can be done without (an idle instance, a cache): after a panic it is
//!   dropped, replaced by its empty value, and built again from where it came from.
//! - [`lock_whole`]: every critical section of the lock is one step that either happens
//!   or does not (a counter, one insert or remove of a map or set, a flag): no panic can
//!   leave it half-done, so what it holds is kept. A lock whose section grows past one
//!   such step must move to the first rule.
//!
//! The catch sites (`catch_unwind`) say what they discard where they are.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// Locks `mutex`; after a panic under it, its state is dropped for `T::default()` (the
/// owner builds it again from the disk or the gateway) and the lock is clean again.
pub(crate) fn lock_rebuilt<T: Default>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    lock_or(mutex, |_| T::default())
}

/// Locks `mutex`; after a panic under it, its state is dropped for `fresh(&old)` (which
/// reads only the settings of the old state, e.g. a capacity).
pub(crate) fn lock_or<T>(mutex: &Mutex<T>, fresh: impl FnOnce(&T) -> T) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => {
            let mut guard = poisoned.into_inner();
            // Dropped here, under the lock: nobody sees the old state again.
            *guard = fresh(&guard);
            mutex.clear_poison();
            guard
        }
    }
}

/// Locks `mutex` whose every critical section is one whole step (see the module): what it
/// holds is kept after a panic elsewhere in the thread that held it.
pub(crate) fn lock_whole<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// [`Condvar::wait`] on a lock of [`lock_whole`]'s rule.
pub(crate) fn wait_whole<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    condvar.wait(guard).unwrap_or_else(PoisonError::into_inner)
}

/// [`Condvar::wait_timeout`] on a lock of [`lock_whole`]'s rule (the guard, and whether the
/// time ran out).
pub(crate) fn wait_timeout_whole<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>, timeout: Duration) -> (MutexGuard<'a, T>, bool) {
    let (guard, result) = condvar.wait_timeout(guard, timeout).unwrap_or_else(PoisonError::into_inner);
    (guard, result.timed_out())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    fn poison(mutex: &Mutex<Vec<u32>>) {
        let _ = catch_unwind(AssertUnwindSafe(|| {
            let mut guard = mutex.lock().unwrap();
            guard.push(2); // half of an update of two steps
            panic!("between the two steps");
        }));
        assert!(mutex.is_poisoned());
    }

    #[test]
    fn a_rebuilt_lock_drops_what_a_panic_left() {
        let mutex = Mutex::new(vec![1]);
        poison(&mutex);
        assert!(lock_rebuilt(&mutex).is_empty());
        assert!(!mutex.is_poisoned());
        lock_rebuilt(&mutex).push(7);
        assert_eq!(*lock_rebuilt(&mutex), [7]);
        poison(&mutex);
        assert_eq!(*lock_or(&mutex, |old| vec![old.len() as u32]), [2]);
    }

    #[test]
    fn a_whole_lock_keeps_its_value() {
        let mutex = Mutex::new(vec![1]);
        poison(&mutex);
        assert_eq!(*lock_whole(&mutex), [1, 2]);
    }
}
