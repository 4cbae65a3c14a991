//! The gateway wire component (`wire/`, the `gateway-wire` world) in a store of its own:
//! every mapping between OpenClaw's JSON and the contract's records is the wire's
//! (one copy for both hosts and both protocol eras); this side only carries its one generic
//! call over the connection ([`Carrier`]) and keeps the runs it starts.
//!
//! A store serves one call at a time, and calls come from many threads (one per agent
//! instance, and the job runner's), some of them long (`agent.wait`): so a call takes an idle
//! instance, or makes one, and gives it back after. An instance that trapped, or grew large
//! answering a long history, is dropped instead.

use std::sync::{Arc, Mutex, OnceLock};

use session_tools_contract::wit::{FromWit, IntoWit};
use session_tools_wire::TransportError;
use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Engine, Store};

use crate::gateway::{GatewayError, GatewayResult};

wasmtime::component::bindgen!({
    path: "../wit",
    world: "gateway-wire",
});

session_tools_contract::wit_records!(crate::gateway::live::wire_component::openclaw::session_tools::types);

use exports::openclaw::session_tools::{gateway as wit_gateway, tree as wit_tree, wire as wit_wire};
use openclaw::session_tools::{runs as wit_runs, transport as wit_transport, types as wit_types};

/// Idle instances kept for the next calls; more are made while more calls are in flight.
const MAX_IDLE: usize = 16;

/// An instance whose memory grew past this is not kept (a long history's answer passed
/// through it).
const MAX_KEPT_MEMORY: usize = 32 << 20;

/// What carries the wire's calls: the live gateway's connection, and its runs.
pub(super) trait Carrier: Send + Sync {
    fn call(&self, request: session_tools_wire::Request) -> Result<String, TransportError>;
    fn call_many(&self, requests: Vec<session_tools_wire::Request>) -> Vec<Result<String, TransportError>>;
    fn run_started(&self, run_id: &str, session_key: &str);
    fn run_session(&self, run_id: &str) -> Option<String>;
}

/// A wire instance's store: the carrier, and the inert WASI that std's runtime imports.
pub(super) struct WireState {
    carrier: Arc<dyn Carrier>,
    wasi: crate::wasi::Wasi,
    memory: MemoryMeter,
}

/// How large the instance's memory has grown.
#[derive(Default)]
struct MemoryMeter {
    bytes: usize,
}

impl wasmtime::ResourceLimiter for MemoryMeter {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        self.bytes = self.bytes.max(desired);
        Ok(true)
    }
    fn table_growing(&mut self, _current: usize, _desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(true)
    }
}

fn request_of(r: wit_transport::Request) -> session_tools_wire::Request {
    session_tools_wire::Request { method: r.method, params: r.params, holds_ms: r.holds_ms, resend_safe: r.resend_safe }
}

fn error_to_wit(e: TransportError) -> wit_transport::TransportError {
    match e {
        TransportError::Gateway(frame) => wit_transport::TransportError::Gateway(frame),
        TransportError::Timeout(m) => wit_transport::TransportError::Timeout(m),
        TransportError::Unavailable(m) => wit_transport::TransportError::Unavailable(m),
    }
}

impl wit_types::Host for WireState {}

impl wit_transport::Host for WireState {
    fn call(&mut self, request: wit_transport::Request) -> Result<String, wit_transport::TransportError> {
        self.carrier.call(request_of(request)).map_err(error_to_wit)
    }
    fn call_many(&mut self, requests: Vec<wit_transport::Request>) -> Vec<Result<String, wit_transport::TransportError>> {
        let requests = requests.into_iter().map(request_of).collect();
        self.carrier.call_many(requests).into_iter().map(|a| a.map_err(error_to_wit)).collect()
    }
}

impl wit_runs::Host for WireState {
    fn run_accepted(&mut self, run_id: String, session_key: String) {
        self.carrier.run_started(&run_id, &session_key)
    }
    fn session_of(&mut self, run_id: String) -> Option<String> {
        self.carrier.run_session(&run_id)
    }
}

/// The compiled wire, once per process.
struct Compiled {
    engine: Engine,
    pre: GatewayWirePre<WireState>,
}

fn compiled() -> Result<&'static Compiled, String> {
    static COMPILED: OnceLock<Result<Compiled, String>> = OnceLock::new();
    COMPILED
        .get_or_init(|| {
            (|| -> wasmtime::Result<Compiled> {
                let engine = Engine::new(&wasmtime::Config::new())?;
                let component = wasmtime::component::Component::new(&engine, crate::WIRE_COMPONENT)?;
                let mut linker = Linker::new(&engine);
                link(&mut linker)?;
                let pre = GatewayWirePre::new(linker.instantiate_pre(&component)?)?;
                Ok(Compiled { engine, pre })
            })()
            .map_err(|e| format!("loading the gateway wire component: {e:#}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

fn link(linker: &mut Linker<WireState>) -> wasmtime::Result<()> {
    GatewayWire::add_to_linker::<WireState, HasSelf<WireState>>(linker, |s| s)?;
    // Only what std's runtime imports, and the seed of its hash maps (the wire's JSON
    // objects keep their order regardless): no files, sockets or clocks; stdio goes nowhere.
    crate::wasi::add_to_linker_with_seed(linker, |s| &mut s.wasi)
}

/// One instance of the wire.
struct Instance {
    store: Store<WireState>,
    wire: GatewayWire,
}

/// The wire instances of one gateway connection.
pub(super) struct Wires {
    carrier: Arc<dyn Carrier>,
    protocol: u32,
    idle: Mutex<Vec<Instance>>,
}

impl Wires {
    /// Instances speaking `protocol` (as the handshake negotiated it) over `carrier`. Fails
    /// when the wire cannot be loaded or does not speak that protocol.
    pub fn new(carrier: Arc<dyn Carrier>, protocol: u32) -> Result<Wires, String> {
        let wires = Wires { carrier, protocol, idle: Mutex::new(Vec::new()) };
        let first = wires.instance()?;
        wires.give_back(first);
        Ok(wires)
    }

    fn instance(&self) -> Result<Instance, String> {
        let compiled = compiled()?;
        let state = WireState { carrier: self.carrier.clone(), wasi: crate::wasi::Wasi::silent(), memory: MemoryMeter::default() };
        let mut store = Store::new(&compiled.engine, state);
        store.limiter(|s| &mut s.memory);
        let wire = compiled.pre.instantiate(&mut store).map_err(|e| format!("starting the gateway wire: {e:#}"))?;
        wire.openclaw_session_tools_wire()
            .call_configure(
                &mut store,
                // The host bounds each answer itself, where it hands it to the guest.
                wit_wire::Connection { protocol: self.protocol, max_answer_bytes: None },
            )
            .map_err(|e| format!("configuring the gateway wire: {e:#}"))??;
        Ok(Instance { store, wire })
    }

    fn give_back(&self, instance: Instance) {
        if instance.store.data().memory.bytes > MAX_KEPT_MEMORY {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push(instance);
        }
    }

    /// Runs `f` on an instance. A trap (a fault in the wire) is a gateway error, and the
    /// instance is dropped.
    fn with<R>(&self, f: impl FnOnce(&mut Store<WireState>, &GatewayWire) -> wasmtime::Result<R>) -> GatewayResult<R> {
        let taken = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut instance = match taken {
            Some(instance) => instance,
            None => self.instance().map_err(GatewayError::new)?,
        };
        match f(&mut instance.store, &instance.wire) {
            Ok(answer) => {
                self.give_back(instance);
                Ok(answer)
            }
            Err(trap) => Err(GatewayError::new(format!("the gateway wire failed: {trap:#}"))),
        }
    }

    /// A gateway call through the wire: its answer, or the gateway error it gave.
    pub fn gateway<R>(
        &self,
        f: impl FnOnce(&wit_gateway::Guest, &mut Store<WireState>) -> wasmtime::Result<Result<R, wit_types::GatewayError>>,
    ) -> GatewayResult<R> {
        self.with(|store, wire| f(wire.openclaw_session_tools_gateway(), store))?.map_err(GatewayError::from_wit)
    }

    /// A spawn-tree question through the wire.
    pub fn tree<R>(&self, f: impl FnOnce(&wit_tree::Guest, &mut Store<WireState>) -> wasmtime::Result<R>) -> GatewayResult<R> {
        self.with(|store, wire| f(wire.openclaw_session_tools_tree(), store))
    }
}

/// A record of the contract as the wire's.
pub(super) fn to_wit<C: IntoWit<W> + Clone, W>(c: &C) -> W {
    c.clone().into_wit()
}

/// A record of the wire's as the contract's.
pub(super) fn of_wit<W, C: FromWit<W>>(w: W) -> C {
    C::from_wit(w)
}
