//! The live MCP sessions of the session-based revisions (2025-06-18, 2025-11-25; a
//! 2026-07-28 client opens none): which token opened each, whether it is busy (a stream
//! open or a request in flight) and when it was last used.
//!
//! Every session rmcp holds is here from its `initialize` to its end, and leaves by one
//! of four ways: DELETE, an answer 404 (rmcp no longer knows it), its token opening one
//! more than its cap (the least recently used idle one goes), or idle expiry. Whoever
//! removes one here closes it in rmcp (the gate), so the two never drift and nothing here
//! grows without bound: at most the cap a token, plus the `initialize`s in flight.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::refusal::Refusal;
use super::TokenHash;

/// The sessions of one server.
#[derive(Debug)]
pub struct Sessions {
    max_per_token: usize,
    idle: Duration,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    by_id: HashMap<String, Entry>,
    by_token: HashMap<TokenHash, Tally>,
}

#[derive(Debug)]
struct Entry {
    token: TokenHash,
    last_used: Instant,
    /// Streams open and requests in flight.
    busy: usize,
}

#[derive(Debug, Default)]
struct Tally {
    ids: HashSet<String>,
    /// `initialize`s in flight.
    opening: usize,
}

/// Whose a session is, for a request with a token.
#[derive(Debug, PartialEq, Eq)]
pub enum Owner {
    Mine,
    Another,
    Unknown,
}

/// A place for a session being opened, given back if it is not opened.
#[derive(Debug)]
pub struct Opening {
    sessions: Arc<Sessions>,
    token: TokenHash,
    done: bool,
}

/// A session in use (a request or a stream), until dropped.
#[derive(Debug)]
pub struct Activity {
    sessions: Arc<Sessions>,
    id: String,
}

impl Sessions {
    pub fn new(max_per_token: usize, idle: Duration) -> Arc<Sessions> {
        Arc::new(Sessions { max_per_token, idle, inner: Mutex::new(Inner::default()) })
    }

    pub fn owner(&self, id: &str, token: &TokenHash) -> Owner {
        match self.inner().by_id.get(id) {
            Some(entry) if entry.token == *token => Owner::Mine,
            Some(_) => Owner::Another,
            None => Owner::Unknown,
        }
    }

    /// A place for one more session of `token`. At its cap, its least recently used idle
    /// session is removed to make room (its id is answered, for the caller to close it);
    /// with none idle, a refusal.
    pub fn open(self: &Arc<Self>, token: TokenHash) -> Result<(Opening, Option<String>), Refusal> {
        let mut inner = self.inner();
        let Inner { by_id, by_token } = &mut *inner;
        let tally = by_token.entry(token).or_default();
        let mut evicted = None;
        if tally.ids.len() + tally.opening >= self.max_per_token {
            let idle = tally
                .ids
                .iter()
                .filter_map(|id| by_id.get(id).filter(|e| e.busy == 0).map(|e| (e.last_used, id)))
                .min()
                .map(|(_, id)| id.clone());
            let Some(id) = idle else {
                if tally.ids.is_empty() && tally.opening == 0 {
                    by_token.remove(&token);
                }
                return Err(Refusal::SessionsBusy { limit: self.max_per_token });
            };
            tally.ids.remove(&id);
            by_id.remove(&id);
            evicted = Some(id);
        }
        tally.opening += 1;
        Ok((Opening { sessions: self.clone(), token, done: false }, evicted))
    }

    /// A session of the caller's in use until the answer is dropped; `None` if unknown.
    pub fn use_session(self: &Arc<Self>, id: &str) -> Option<Activity> {
        let mut inner = self.inner();
        let entry = inner.by_id.get_mut(id)?;
        entry.busy += 1;
        entry.last_used = Instant::now();
        Some(Activity { sessions: self.clone(), id: id.to_string() })
    }

    /// Removes a session (ended, or unknown to rmcp); whether it was here.
    pub fn forget(&self, id: &str) -> bool {
        let mut inner = self.inner();
        let Some(entry) = inner.by_id.remove(id) else {
            return false;
        };
        inner.untally(&entry.token, id);
        true
    }

    /// Removes the sessions idle longer than the expiry at `now`; their ids, to close.
    pub fn expire(&self, now: Instant) -> Vec<String> {
        let mut inner = self.inner();
        let expired: Vec<(String, TokenHash)> = inner
            .by_id
            .iter()
            .filter(|(_, e)| e.busy == 0 && now.saturating_duration_since(e.last_used) >= self.idle)
            .map(|(id, e)| (id.clone(), e.token))
            .collect();
        for (id, token) in &expired {
            inner.by_id.remove(id);
            inner.untally(token, id);
        }
        expired.into_iter().map(|(id, _)| id).collect()
    }

    /// Live sessions, all tokens together.
    pub fn live(&self) -> usize {
        self.inner().by_id.len()
    }

    /// Live sessions of `token`.
    pub fn live_of(&self, token: &TokenHash) -> usize {
        self.inner().by_token.get(token).map_or(0, |t| t.ids.len())
    }

    pub fn idle(&self) -> Duration {
        self.idle
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Inner {
    fn untally(&mut self, token: &TokenHash, id: &str) {
        if let Some(tally) = self.by_token.get_mut(token) {
            tally.ids.remove(id);
            if tally.ids.is_empty() && tally.opening == 0 {
                self.by_token.remove(token);
            }
        }
    }
}

impl Opening {
    /// The session rmcp opened: it is live, and in use while its `initialize` is answered.
    pub fn opened(mut self, id: String) -> Activity {
        self.done = true;
        let sessions = self.sessions.clone();
        let mut inner = sessions.inner();
        let tally = inner.by_token.entry(self.token).or_default();
        tally.opening -= 1;
        tally.ids.insert(id.clone());
        inner.by_id.insert(id.clone(), Entry { token: self.token, last_used: Instant::now(), busy: 1 });
        drop(inner);
        Activity { sessions, id }
    }
}

impl Drop for Opening {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut inner = self.sessions.inner();
        if let Some(tally) = inner.by_token.get_mut(&self.token) {
            tally.opening -= 1;
            if tally.ids.is_empty() && tally.opening == 0 {
                inner.by_token.remove(&self.token);
            }
        }
    }
}

impl Drop for Activity {
    fn drop(&mut self) {
        let mut inner = self.sessions.inner();
        if let Some(entry) = inner.by_id.get_mut(&self.id) {
            entry.busy -= 1;
            entry.last_used = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: TokenHash = [1; 32];
    const B: TokenHash = [2; 32];

    fn open(sessions: &Arc<Sessions>, token: TokenHash, id: &str) -> Option<String> {
        let (opening, evicted) = sessions.open(token).unwrap();
        drop(opening.opened(id.to_string()));
        evicted
    }

    #[test]
    fn a_token_at_its_cap_gives_up_its_least_recently_used_idle_session() {
        let sessions = Sessions::new(3, Duration::from_secs(60));
        for id in ["a1", "a2", "a3"] {
            assert_eq!(open(&sessions, A, id), None);
            std::thread::sleep(Duration::from_millis(2));
        }
        open(&sessions, B, "b1");
        // a1 is the oldest, but a listener keeps it busy; a2 was used last of the others.
        let _listening = sessions.use_session("a1").unwrap();
        std::thread::sleep(Duration::from_millis(2));
        drop(sessions.use_session("a2").unwrap());
        assert_eq!(open(&sessions, A, "a4").as_deref(), Some("a3"));
        assert_eq!(sessions.owner("a3", &A), Owner::Unknown);
        assert_eq!((sessions.live_of(&A), sessions.live_of(&B), sessions.live()), (3, 1, 4));
        assert_eq!(sessions.owner("b1", &A), Owner::Another);
        assert_eq!(sessions.owner("a4", &A), Owner::Mine);
    }

    #[test]
    fn a_token_whose_sessions_are_all_busy_is_refused_and_initializes_in_flight_count() {
        let sessions = Sessions::new(2, Duration::from_secs(60));
        open(&sessions, A, "a1");
        let _busy = sessions.use_session("a1").unwrap();
        let (in_flight, evicted) = sessions.open(A).unwrap();
        assert_eq!(evicted, None);
        assert_eq!(sessions.open(A).unwrap_err(), Refusal::SessionsBusy { limit: 2 });
        assert!(sessions.open(B).is_ok(), "another token is not counted with this one");
        drop(in_flight);
        let (again, _) = sessions.open(A).unwrap();
        drop(again);
        assert_eq!(sessions.live_of(&A), 1);
    }

    #[test]
    fn idle_sessions_expire_busy_ones_do_not_and_nothing_is_left_behind() {
        let sessions = Sessions::new(10, Duration::from_secs(5));
        open(&sessions, A, "a1");
        open(&sessions, A, "a2");
        open(&sessions, B, "b1");
        let listening = sessions.use_session("a2").unwrap();
        let now = Instant::now();
        assert!(sessions.expire(now).is_empty());
        let mut expired = sessions.expire(now + Duration::from_secs(6));
        expired.sort();
        assert_eq!(expired, ["a1", "b1"]);
        assert_eq!(sessions.live(), 1);
        drop(listening);
        assert!(sessions.forget("a2"));
        assert!(!sessions.forget("a2"));
        assert_eq!(sessions.live(), 0);
        let inner = sessions.inner();
        assert!(inner.by_id.is_empty() && inner.by_token.is_empty(), "{inner:?}");
    }
}
