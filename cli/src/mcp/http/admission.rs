//! Which connections the server holds, and for whom.
//!
//! A connection is *waiting* from its accept until a request on it carries a valid token;
//! then it counts against that token's [`Quota`] (until it closes, or a request with
//! another token moves it: proxies reuse connections). Waiting connections are capped
//! together: a new one beyond the cap closes the oldest waiting one, so sockets that never
//! authenticate only push each other out. All connections together are capped as a
//! backstop for file descriptors; beyond it a new connection is refused (503), unless a
//! waiting one can be closed to make room.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

use super::quota::{Permit, Quota};
use super::refusal::Refusal;
use super::TokenHash;

/// The connections of one server.
#[derive(Debug)]
pub struct Admission {
    max_connections: usize,
    max_waiting: usize,
    per_token: Arc<Quota>,
    inner: Mutex<Inner>,
    /// Connections being answered 503 (bounded like the waiting ones).
    refusing: AtomicUsize,
}

#[derive(Debug, Default)]
struct Inner {
    next_id: u64,
    /// Waiting connections, oldest first, with what closes each.
    waiting: BTreeMap<u64, CancellationToken>,
    /// Connections a token holds.
    authenticated: usize,
}

/// What to do with a connection just accepted.
pub enum Admitted {
    /// Serve it; `pushed_out` says whether the oldest waiting connection was closed for it.
    Serve { ticket: Ticket, pushed_out: bool },
    /// Answer it 503 and close it (all connections are taken by tokens).
    Refuse(Refusing),
    /// Close it at once: even the 503 answers are at their cap.
    Drop,
}

/// A connection's place, given back when dropped.
#[derive(Debug)]
pub struct Ticket {
    id: u64,
    admission: Arc<Admission>,
    /// Cancelled when the connection is pushed out.
    close: CancellationToken,
    held: Mutex<Option<Permit>>,
}

/// A connection being answered 503.
pub struct Refusing(Arc<Admission>);

impl Admission {
    pub fn new(max_connections: usize, max_waiting: usize, max_per_token: usize) -> Arc<Admission> {
        Arc::new(Admission {
            max_connections,
            max_waiting,
            per_token: Quota::new(max_per_token),
            inner: Mutex::new(Inner::default()),
            refusing: AtomicUsize::new(0),
        })
    }

    /// A place for a connection just accepted.
    pub fn admit(self: &Arc<Self>) -> Admitted {
        let mut inner = self.inner();
        let mut pushed_out = false;
        let full = inner.waiting.len() + inner.authenticated >= self.max_connections;
        if full || inner.waiting.len() >= self.max_waiting {
            match inner.waiting.pop_first() {
                Some((_, close)) => {
                    close.cancel();
                    pushed_out = true;
                }
                None => {
                    drop(inner);
                    return self.refuse();
                }
            }
        }
        let id = inner.next_id;
        inner.next_id += 1;
        let close = CancellationToken::new();
        inner.waiting.insert(id, close.clone());
        Admitted::Serve { ticket: Ticket { id, admission: self.clone(), close, held: Mutex::new(None) }, pushed_out }
    }

    fn refuse(self: &Arc<Self>) -> Admitted {
        let refusing = self.refusing.fetch_add(1, Ordering::SeqCst);
        if refusing >= self.max_waiting {
            self.refusing.fetch_sub(1, Ordering::SeqCst);
            return Admitted::Drop;
        }
        Admitted::Refuse(Refusing(self.clone()))
    }

    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    pub fn max_waiting(&self) -> usize {
        self.max_waiting
    }

    /// Connections waiting to authenticate, and connections tokens hold.
    #[cfg(test)]
    pub fn counts(&self) -> (usize, usize) {
        let inner = self.inner();
        (inner.waiting.len(), inner.authenticated)
    }

    /// Connections `token` holds.
    #[cfg(test)]
    pub fn held_by(&self, token: &TokenHash) -> usize {
        self.per_token.held_by(token)
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Ticket {
    /// A request on this connection carries `token`: the connection is that token's from
    /// now on, if the token may hold one more.
    pub fn authenticate(&self, token: &TokenHash) -> Result<(), Refusal> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if held.as_ref().is_some_and(|permit| permit.token() == token) {
            return Ok(());
        }
        let admission = &self.admission;
        let permit = admission.per_token.acquire(*token).ok_or(Refusal::TooManyConnections { limit: admission.per_token.limit() })?;
        if held.is_none() {
            let mut inner = admission.inner();
            if inner.waiting.remove(&self.id).is_none() {
                // Pushed out a moment ago: it is closing.
                return Err(Refusal::ServerFull { limit: admission.max_connections });
            }
            inner.authenticated += 1;
        }
        // Another token's permit, if any, is given back.
        *held = Some(permit);
        Ok(())
    }

    /// Completes when the connection is pushed out (it never is once a token holds it).
    pub fn closed(&self) -> CancellationToken {
        self.close.clone()
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let held = self.held.get_mut().unwrap_or_else(|p| p.into_inner()).take();
        let mut inner = self.admission.inner();
        match held {
            Some(_permit) => inner.authenticated -= 1,
            None => {
                inner.waiting.remove(&self.id);
            }
        }
    }
}

impl Drop for Refusing {
    fn drop(&mut self) {
        self.0.refusing.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: TokenHash = [1; 32];
    const B: TokenHash = [2; 32];

    fn serve(admission: &Arc<Admission>) -> (Ticket, bool) {
        match admission.admit() {
            Admitted::Serve { ticket, pushed_out } => (ticket, pushed_out),
            Admitted::Refuse(_) => panic!("refused"),
            Admitted::Drop => panic!("dropped"),
        }
    }

    #[test]
    fn waiting_connections_push_out_the_oldest_waiting_one_never_a_token_s() {
        let admission = Admission::new(100, 3, 10);
        let (agent, _) = serve(&admission);
        agent.authenticate(&A).unwrap();
        let idle: Vec<(Ticket, bool)> = (0..3).map(|_| serve(&admission)).collect();
        assert!(idle.iter().all(|(_, pushed)| !pushed));
        let (_newest, pushed) = serve(&admission);
        assert!(pushed);
        assert!(idle[0].0.closed().is_cancelled(), "the oldest waiting connection is closed");
        assert!(!idle[1].0.closed().is_cancelled() && !agent.closed().is_cancelled());
        assert_eq!(admission.counts(), (3, 1));
        // The one pushed out cannot authenticate any more.
        assert!(matches!(idle[0].0.authenticate(&B), Err(Refusal::ServerFull { .. })));
        assert_eq!(admission.held_by(&B), 0);
        drop(idle);
        assert_eq!(admission.counts(), (1, 1));
        drop(agent);
        assert_eq!(admission.counts(), (1, 0));
    }

    #[test]
    fn a_token_holds_at_most_its_cap_and_a_connection_moves_between_tokens() {
        let admission = Admission::new(100, 100, 2);
        let tickets: Vec<Ticket> = (0..4).map(|_| serve(&admission).0).collect();
        tickets[0].authenticate(&A).unwrap();
        tickets[0].authenticate(&A).unwrap();
        tickets[1].authenticate(&A).unwrap();
        assert!(matches!(tickets[2].authenticate(&A), Err(Refusal::TooManyConnections { limit: 2 })));
        assert_eq!(admission.held_by(&A), 2);
        tickets[2].authenticate(&B).unwrap();
        // A request with B on A's connection moves it to B.
        tickets[1].authenticate(&B).unwrap();
        assert_eq!((admission.held_by(&A), admission.held_by(&B)), (1, 2));
        tickets[3].authenticate(&A).unwrap();
        assert_eq!(admission.counts(), (0, 4));
        drop(tickets);
        assert_eq!(admission.counts(), (0, 0));
        assert_eq!((admission.held_by(&A), admission.held_by(&B)), (0, 0));
    }

    #[test]
    fn when_tokens_hold_every_connection_new_ones_are_refused_and_the_refusals_are_bounded() {
        let admission = Admission::new(2, 1, 2);
        let (first, _) = serve(&admission);
        first.authenticate(&A).unwrap();
        let (second, _) = serve(&admission);
        second.authenticate(&B).unwrap();
        let refusals: Vec<Admitted> = (0..3).map(|_| admission.admit()).collect();
        assert!(matches!(refusals[0], Admitted::Refuse(_)));
        assert!(refusals[1..].iter().all(|a| matches!(a, Admitted::Drop)), "one 503 in flight at a time here");
        drop(refusals);
        drop(second);
        let (_third, pushed) = serve(&admission);
        assert!(!pushed);
    }
}
