//! The world's hosts: adding and naming them, and their lifecycle (stop,
//! start, reset, pause), applied between polls.

use std::rc::Rc;

use super::{Entry, Host, HostOp, Origin, World, WorldMetrics, MAIN_HOST};
use crate::runtime::task::{WakeRecord, MAIN_KEY};
use crate::scheduler::{HostId, Observation};

impl World {
    // ----- hosts -----------------------------------------------------------

    /// Adds a host to the runtime and the network.
    ///
    /// # Panics
    ///
    /// When the name is taken or reserved, or an address is invalid or taken
    /// (the network model's rules).
    pub(crate) fn add_host(
        &self,
        name: &str,
        addrs: Vec<std::net::IpAddr>,
        entry: Option<Entry>,
    ) -> HostId {
        assert!(
            self.host_by_name(name).is_none(),
            "a host named \"{name}\" already exists in this simulation; host names must be unique"
        );
        let mut core = self.core.borrow_mut();
        let net_id = self.net.borrow_mut().net.add_host(name, addrs);
        let id = HostId(core.hosts.len() as u32);
        debug_assert_eq!(
            crate::runtime::net::sim_host(net_id),
            id,
            "hosts are created in lockstep"
        );
        core.hosts.push(Host {
            name: name.into(),
            span: tracing::trace_span!("host", name),
            signals: Vec::new(),
            net_id,
            entry,
            stopped: false,
            paused: false,
            deferred: Vec::new(),
        });
        self.watch.host_added(id.index() as u32, name);
        id
    }

    /// The host named `name`, by the network's resolver's rules (case and
    /// a trailing dot do not matter), so that every name `connect` accepts
    /// also names the host for `sim::reset` and the others.
    pub(crate) fn host_by_name(&self, name: &str) -> Option<HostId> {
        let net = self.net.borrow();
        net.net
            .host_by_name(name)
            .map(crate::runtime::net::sim_host)
    }

    pub(crate) fn host_name(&self, host: HostId) -> Rc<str> {
        self.core.borrow().hosts[host.index()].name.clone()
    }

    // ----- host lifecycle ---------------------------------------------------

    /// Stops, starts, resets or pauses `host` now, or, when the running task
    /// belongs to `host`, as soon as its poll returns. A signal the host's
    /// program raised (`kill`, `raise`) waits for the end of any running
    /// poll: tokio's signal driver sees a signal at its next turn, never in
    /// the middle of a poll.
    pub(crate) fn host_op(&self, host: HostId, op: HostOp) {
        let signal = matches!(op, HostOp::Signal(_));
        assert!(
            signal || host != MAIN_HOST,
            "the main host runs the test's own future: it cannot be stopped, reset or paused \
             (create other hosts with sim_rt::sim::host and act on those)"
        );
        {
            let mut core = self.core.borrow_mut();
            assert!(
                host.index() < core.hosts.len(),
                "{host} is not a host of this simulation"
            );
            let defer = match core.current {
                Some(c) => signal || c.host == host,
                None => false,
            };
            if defer {
                core.host_ops.push((host, op));
                return;
            }
        }
        match op {
            HostOp::Stop => self.stop_host(host),
            HostOp::Start => self.start_host(host),
            HostOp::Reset => {
                self.stop_host(host);
                self.start_host(host);
            }
            HostOp::Pause => self.pause_host(host, true),
            HostOp::Signal(signum) => self.deliver_signal(host, signum),
        }
    }

    /// Delivers `signum` to `host` now: every listener of it made before
    /// this call is ready, and those waiting are woken in the order they
    /// started waiting.
    pub(crate) fn deliver_signal(&self, host: HostId, signum: i32) {
        let waiters = {
            let mut core = self.core.borrow_mut();
            let slot = core.hosts[host.index()].signal_slot(signum);
            slot.sent += 1;
            std::mem::take(&mut slot.waiters)
        };
        for w in waiters {
            w.wake();
        }
    }

    /// Delivers `signum` to every host of this simulation that listens for
    /// it, from outside the simulation (the program signalled its own
    /// process between two `block_on`s). False when none listens, or the
    /// simulation is busy (then nothing is delivered). Never panics.
    pub(crate) fn deliver_signal_from_outside(&self, signum: i32) -> bool {
        let hosts: Vec<HostId> = match self.core.try_borrow() {
            Ok(core) => (0..core.hosts.len())
                .filter(|&i| core.hosts[i].listens(signum))
                .map(|i| HostId(i as u32))
                .collect(),
            Err(_) => return false,
        };
        for &host in &hosts {
            self.deliver_signal(host, signum);
        }
        !hosts.is_empty()
    }

    /// Applies the host changes a task asked for on its own host. Inlined
    /// at every poll: almost always there are none.
    #[inline(always)]
    pub(super) fn apply_host_ops(&self) {
        if !self.core.borrow().host_ops.is_empty() {
            self.apply_host_ops_now();
        }
    }

    fn apply_host_ops_now(&self) {
        loop {
            let ops = std::mem::take(&mut self.core.borrow_mut().host_ops);
            if ops.is_empty() {
                return;
            }
            for (host, op) in ops {
                self.host_op(host, op);
            }
        }
    }

    /// Crashes `host`: its kernel forgets every socket, its disk loses what
    /// was not synced (as its crash model allows), and every task of
    /// the host is dropped (its `JoinHandle`s see a cancelled `JoinError`).
    /// A no-op on a stopped host.
    pub(super) fn stop_host(&self, host: HostId) {
        let (net_id, cells) = {
            let mut guard = self.core.borrow_mut();
            let core = &mut *guard;
            let h = &mut core.hosts[host.index()];
            if h.stopped {
                return;
            }
            h.stopped = true;
            h.paused = false;
            h.deferred.clear();
            let net_id = h.net_id;
            let mut cells = Vec::new();
            for (key, slot) in core.tasks.iter_mut() {
                if slot.host == host && !slot.finished {
                    slot.finished = true;
                    let cell = slot
                        .cell
                        .take()
                        .expect("no task of a host runs while the host is stopped");
                    let join_waker = Self::take_join_waker(&mut core.cold, key, slot);
                    cells.push((key, slot.id, cell, join_waker));
                }
            }
            let tasks = &core.tasks;
            core.enabled
                .retain(|r| r.key() == MAIN_KEY || !tasks[r.key()].finished);
            (net_id, cells)
        };
        self.net_op(|net, now| net.stop_host(net_id, now));
        // Before the tasks drop: their in-flight disk writes die with the host.
        self.fs_crash(host);
        // Its blocking pool's threads stop with its tasks.
        self.forget_pool(host);
        self.tell(|| crate::story::Happening::Stopped { host });
        self.observe(Observation::HostStopped { host });
        for (key, id, mut cell, join_waker) in cells {
            // Drops the future: its sockets close on a dead kernel (no-ops).
            crate::runtime::task::cancel(cell.as_mut(), id);
            let unclaimed = {
                let mut core = self.core.borrow_mut();
                match Self::slot(&mut core, key, id) {
                    Some(slot) if slot.has_handle => {
                        slot.cell = Some(cell);
                        None
                    }
                    Some(_) => {
                        Self::remove_task(&mut core, key);
                        Some(cell)
                    }
                    // Its JoinHandle was held by a task of this host dropped
                    // just before: releasing it freed the slot already.
                    None => Some(cell),
                }
            };
            drop(unclaimed);
            self.observe(Observation::Finished { task: id });
            if let Some(w) = join_waker {
                w.wake();
            }
        }
    }

    /// Boots `host` again and spawns its entry point. A no-op on a host
    /// that is not stopped.
    pub(super) fn start_host(&self, host: HostId) {
        let (net_id, entry) = {
            let mut core = self.core.borrow_mut();
            let h = &mut core.hosts[host.index()];
            if !h.stopped {
                return;
            }
            h.stopped = false;
            (h.net_id, h.entry.clone())
        };
        self.net_op(|net, now| net.start_host(net_id, now));
        self.tell(|| crate::story::Happening::Started { host });
        self.observe(Observation::HostStarted { host });
        if let Some(entry) = entry {
            let (key, id) = self.spawn(entry(), Some(host), Origin::HostEntry);
            self.release_handle(key, id);
        }
    }

    /// Pauses (`true`) or resumes `host`: while paused its tasks are not
    /// polled (their wakes wait), but its kernel keeps receiving packets.
    pub(crate) fn pause_host(&self, host: HostId, paused: bool) {
        let requeue = {
            let mut guard = self.core.borrow_mut();
            let core = &mut *guard;
            let h = &mut core.hosts[host.index()];
            if h.stopped || h.paused == paused {
                return;
            }
            h.paused = paused;
            if paused {
                // Runnable tasks of the host wait too.
                let (tasks, hosts) = (&mut core.tasks, &mut core.hosts);
                core.enabled.retain(|r| {
                    let key = r.key();
                    match (key != MAIN_KEY).then(|| &mut tasks[key]) {
                        Some(s) if s.host == host => {
                            // Held back: enabled again when the host resumes.
                            s.queued = false;
                            hosts[host.index()].deferred.push(WakeRecord {
                                key,
                                id: s.id,
                                by: None,
                                yielded: false,
                            });
                            false
                        }
                        _ => true,
                    }
                });
                Vec::new()
            } else {
                std::mem::take(&mut h.deferred)
            }
        };
        self.tell(|| crate::story::Happening::Paused { host, paused });
        self.observe(Observation::HostPaused { host, paused });
        self.wakes.extend(requeue);
    }

    pub(crate) fn host_state(&self, host: HostId) -> (bool, bool) {
        let core = self.core.borrow();
        let h = &core.hosts[host.index()];
        (h.stopped, h.paused)
    }

    pub(crate) fn net_host(&self, host: HostId) -> sim_net::HostId {
        self.core.borrow().hosts[host.index()].net_id
    }

    pub(crate) fn host_count(&self) -> usize {
        self.core.borrow().hosts.len()
    }

    /// What `RuntimeMetrics` reports: spawned tasks not yet finished, tasks
    /// woken and waiting to be polled, clock advances and busy time so far.
    pub(crate) fn metrics(&self) -> WorldMetrics {
        let core = self.core.borrow();
        WorldMetrics {
            alive_tasks: core.tasks.iter().filter(|(_, t)| !t.finished).count(),
            runnable: core.enabled.len(),
            advances: core.advances,
            busy: core.busy(),
            charged: core.charged,
            workers: core.config.workers,
            flavor: core.config.flavor,
            block_ons: core.block_ons,
            driven: self.driven.get(),
            shut_down: self.is_shut_down(),
        }
    }

    /// Keeps `kept` filled with the counters the simulation ends with, for
    /// a `RuntimeMetrics` read after its runtime is dropped (as tokio's
    /// can be).
    pub(crate) fn keep_metrics(&self, kept: &std::sync::Arc<super::KeptMetrics>) {
        let mut all = self.metrics_kept.borrow_mut();
        if !all
            .iter()
            .any(|k| std::ptr::eq(k.as_ptr(), std::sync::Arc::as_ptr(kept)))
        {
            all.retain(|k| k.strong_count() > 0);
            all.push(std::sync::Arc::downgrade(kept));
        }
    }

    /// Fills what [`keep_metrics`](Self::keep_metrics) keeps: the clock's
    /// advances so far; no task is alive or runnable any more.
    pub(super) fn keep_final_metrics(&self) {
        let kept = self.metrics_kept.take();
        if kept.is_empty() {
            return;
        }
        let Ok(mut last) = self.core.try_borrow().map(|_| self.metrics()) else {
            return;
        };
        last.alive_tasks = 0;
        last.runnable = 0;
        last.driven = false;
        last.shut_down = true;
        for k in kept.iter().filter_map(std::sync::Weak::upgrade) {
            *k.lock().unwrap_or_else(|e| e.into_inner()) = Some(last);
        }
    }
}
