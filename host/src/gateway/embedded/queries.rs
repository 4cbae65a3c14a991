//! The read methods: `sessions.list` (reference §1.4 filters, in order), `sessions.resolve`
//! and `chat.history`.

use session_tools_grammar::js::js_trim;
use std::collections::HashSet;

use crate::gateway::*;
use session_tools_grammar::keys::normalize_agent_id;

use super::listing::{IndexedRow, Listing};
use super::registry::checked_session_id;
use super::runs::RunView;
use super::sqlite::{events, AgentDb};
use super::{gw, invalid, not_found, transcript, EmbeddedGateway, Layout, LABEL_MAX};

impl EmbeddedGateway {
    /// The rows of `sessions.list`.
    pub fn list_rows(&self, params: &ListParams) -> GatewayResult<Vec<SessionRow>> {
        let listing = self.listing()?;
        Ok(self.select(&listing, params).into_iter().map(|r| r.row.clone()).collect())
    }

    /// The `sessions.list` filters, ordering and limit over built rows: the rows are walked
    /// in the listing's order (newest first), so the walk ends at the limit; every filter
    /// keeps or drops a row on its own, so filtering in that order answers what filtering
    /// and then sorting would.
    fn select<'a>(&self, listing: &'a Listing, params: &ListParams) -> Vec<&'a IndexedRow> {
        let agent_filter = params.agent_id.as_deref().map(normalize_agent_id);
        let label = params.label.as_deref().map(str::trim).filter(|l| !l.is_empty());
        let spawned_by = params.spawned_by.as_deref().filter(|s| !s.is_empty());
        let search = params.search.as_deref().map(|s| js_trim(s).to_lowercase()).filter(|s| !s.is_empty());
        let cutoff = params.active_minutes.map(|minutes| self.now() as i64 - i64::from(minutes.max(1)) * 60_000);
        let limit = params.limit.map_or(usize::MAX, |limit| limit.max(1) as usize);
        listing
            .newest_first()
            .filter(|r| match r.key.as_str() {
                "global" => params.include_global == Some(true),
                "unknown" => params.include_unknown == Some(true),
                _ => true,
            })
            .filter(|r| agent_filter.as_ref().is_none_or(|agent| !r.is_reserved() && r.key_agent.as_ref() == Some(agent)))
            .filter(|r| spawned_by.is_none_or(|filter| !r.is_reserved() && r.spawned_by.as_deref() == Some(filter)))
            .filter(|r| label.is_none_or(|label| r.label.as_deref() == Some(label)))
            .filter(|r| {
                search.as_deref().is_none_or(|search| {
                    let row = &r.row;
                    [row.display_name.as_deref(), row.label.as_deref(), row.session_id.as_deref(), Some(row.key.as_str())]
                        .into_iter()
                        .flatten()
                        .any(|f| f.to_lowercase().contains(search))
                })
            })
            .filter(|r| cutoff.is_none_or(|cutoff| r.row.updated_at.unwrap_or(0) >= cutoff))
            .take(limit)
            .collect()
    }

    /// `sessions.resolve`: exactly one of a key, a sessionId or a label.
    pub(super) fn resolve(&self, p: &ResolveParams) -> GatewayResult<String> {
        if p.label.as_deref().is_some_and(|l| l.chars().count() > LABEL_MAX) {
            return Err(invalid(format!("invalid sessions.resolve params: at /label: must NOT have more than {LABEL_MAX} characters")));
        }
        // Blank values count as absent.
        let present = |v: &Option<String>| v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        let (key, session_id, label) = (present(&p.key), present(&p.session_id), present(&p.label));
        let given = [key.is_some(), session_id.is_some(), label.is_some()].iter().filter(|b| **b).count();
        if given > 1 {
            return Err(gw("Provide either key, sessionId, or label (not multiple)"));
        }
        if given == 0 {
            return Err(gw("Either key, sessionId, or label is required"));
        }
        if let Some(key) = key {
            return match self.find(&key)? {
                Some(found) => Ok(found.key),
                None => Err(not_found(format!("No session found: {key}"))),
            };
        }
        let listing = self.listing()?;
        let list = |label: Option<String>, limit: u32| {
            self.select(
                &listing,
                &ListParams {
                    limit: Some(limit),
                    include_global: p.include_global,
                    include_unknown: p.include_unknown,
                    spawned_by: p.spawned_by.clone(),
                    label,
                    agent_id: p.agent_id.clone(),
                    search: None,
                    active_minutes: None,
                },
            )
        };
        let keys = |rows: &[&IndexedRow]| rows.iter().map(|r| r.key.as_str()).collect::<Vec<_>>().join(", ");
        if let Some(id) = session_id {
            let rows: Vec<&IndexedRow> =
                list(None, u32::MAX).into_iter().filter(|r| r.row.session_id.as_deref() == Some(id.as_str()) || r.key == id).collect();
            return match rows.as_slice() {
                [] => Err(not_found(format!("No session found: {id}"))),
                [one] => Ok(one.key.clone()),
                many => Err(gw(format!("Multiple sessions found for sessionId: {id} ({})", keys(many)))),
            };
        }
        let label = label.unwrap_or_default();
        let rows = list(Some(label.clone()), 2);
        match rows.as_slice() {
            [] => Err(not_found(format!("No session found with label: {label}"))),
            [one] => Ok(one.key.clone()),
            many => Err(gw(format!("Multiple sessions found with label: {label} ({})", keys(many)))),
        }
    }

    /// `chat.history`: the last `limit` messages of the session's transcript (G4: a legacy
    /// spelling of the key is found too). An unknown session, or one without a transcript,
    /// has no messages; a store or transcript that cannot be read is an error naming it.
    pub(super) fn history(&self, p: &HistoryParams) -> GatewayResult<History> {
        self.histories(std::slice::from_ref(p)).pop().unwrap_or_else(|| Ok(History::default()))
    }

    /// Several `chat.history` calls in one pass: every session is looked up in one
    /// snapshot of each store, so the answers agree with each other.
    pub(super) fn histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        if self.layout() == Layout::Sqlite {
            return self.db_histories(params);
        }
        let mut snapshots = std::collections::HashMap::new();
        params
            .iter()
            .map(|p| {
                let limit = history_limit(p)?;
                let Some(found) = self.find_in_snapshot(&p.session_key, &mut snapshots)? else {
                    return Ok(History::default());
                };
                let session_id = self.session_id(&found)?.map(str::to_string);
                // The first candidate that exists (opened once: no look before the read).
                for file in self.transcript_candidates(&found)? {
                    let read = transcript::read_messages(&file, limit)
                        .map_err(|e| gw(format!("cannot read the transcript {}: {e}", file.path().display())))?;
                    if let Some(messages) = read {
                        return Ok(History { session_id, messages });
                    }
                }
                Ok(History { session_id, messages: Vec::new() })
            })
            .collect()
    }

    /// `chat.history` on 2026.9's databases (E4: the transcript as stored, events newest
    /// first). The sessions of one agent are looked up and read in one snapshot of its
    /// database, so the answers agree with each other and its lock is taken once.
    fn db_histories(&self, params: &[HistoryParams]) -> Vec<GatewayResult<History>> {
        let mut answers: Vec<Option<GatewayResult<History>>> = params.iter().map(|_| None).collect();
        let mut by_agent: indexmap::IndexMap<String, Vec<(usize, String, usize)>> = indexmap::IndexMap::new();
        for (i, p) in params.iter().enumerate() {
            let canonical = self.rules().canonical(&p.session_key);
            match history_limit(p) {
                Err(e) => answers[i] = Some(Err(e)),
                Ok(_) if canonical.is_empty() => answers[i] = Some(Ok(History::default())),
                Ok(limit) => by_agent.entry(self.rules().agent_of(&canonical)).or_default().push((i, canonical, limit)),
            }
        }
        for (agent, wanted) in by_agent {
            let db = self.db_for(&agent);
            if !db.exists() {
                continue;
            }
            let read = db.read_snapshot(|c| {
                wanted.iter().map(|(_, key, limit)| db_history(&db, c, key, *limit)).collect::<rusqlite::Result<Vec<_>>>()
            });
            match read {
                Ok(read) => wanted.iter().zip(read).for_each(|((i, ..), answer)| answers[*i] = Some(answer)),
                Err(e) => wanted.iter().for_each(|(i, ..)| answers[*i] = Some(Err(gw(e.clone())))),
            }
        }
        answers.into_iter().map(|answer| answer.unwrap_or_else(|| Ok(History::default()))).collect()
    }
}

/// One session's `chat.history` in a snapshot of its agent's database.
fn db_history(db: &AgentDb, c: &rusqlite::Connection, key: &str, limit: usize) -> rusqlite::Result<GatewayResult<History>> {
    let visible = match db.visible_in(c, key)? {
        Ok(Some(visible)) => visible,
        Ok(None) => return Ok(Ok(History::default())),
        Err(e) => return Ok(Err(gw(e))),
    };
    let id = match checked_session_id(key, visible.session_id.as_deref()) {
        Ok(Some(id)) => id.to_string(),
        Ok(None) => return Ok(Ok(History::default())),
        Err(e) => return Ok(Err(e)),
    };
    let messages = events::read_messages(c, &id, limit)?;
    Ok(messages.map(|messages| History { session_id: Some(id), messages }).map_err(gw))
}

/// `chat.history`'s `limit`, checked as the gateway's schema checks it.
fn history_limit(p: &HistoryParams) -> GatewayResult<usize> {
    let limit = p.limit.map_or(transcript::DEFAULT_LIMIT, |l| l as usize);
    if limit == 0 {
        return Err(invalid("invalid chat.history params: at /limit: must be >= 1"));
    }
    if limit > transcript::MAX_LIMIT {
        return Err(invalid(format!("invalid chat.history params: at /limit: must be <= {}", transcript::MAX_LIMIT)));
    }
    Ok(limit)
}

/// The spawn tree as the N15 guard reads it: the rows already built for `sessions.list`,
/// read without copying them.
impl SessionTree for EmbeddedGateway {
    fn canonical_key(&self, key: &str) -> String {
        self.rules().canonical(key)
    }

    fn spawned_trees(&self, roots: &HashSet<String>) -> GatewayResult<HashSet<String>> {
        let listing = self.listing()?;
        let edges: Vec<(String, String)> = listing
            .in_store_order()
            .filter_map(|r| r.spawned_by.as_deref().map(|parent| (r.key.clone(), self.rules().canonical(parent))))
            .collect();
        Ok(trees_from_edges(roots, &edges))
    }

    fn rows_of(&self, keys: &HashSet<String>) -> GatewayResult<Vec<SessionRow>> {
        let listing = self.listing()?;
        Ok(listing.in_store_order().filter(|r| keys.contains(&r.key)).map(|r| r.row.clone()).collect())
    }

    fn exists(&self, key: &str) -> GatewayResult<bool> {
        self.find(key).map(|found| found.is_some())
    }

    fn run_session(&self, run_id: &str) -> Option<String> {
        self.runs().session_of(run_id)
    }

    fn no_agent_runtime(&self) -> Option<String> {
        self.no_runtime().map(str::to_string)
    }

    fn run_state(&self, run_id: &str) -> RunState {
        // A run whose process died is adopted on the way (re-run or its end recorded).
        match self.runs().view(run_id) {
            RunView::Ended(_) => RunState::Ended,
            RunView::Running | RunView::Unknown => RunState::Running,
        }
    }
}
