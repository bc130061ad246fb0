//! The step loop: what is enabled, the scheduler's pick, and running it
//! (polling a task, delivering a packet, moving the clock); failures at
//! the end of a run and the liveness walk.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use super::{Core, Current, Main, Next, Origin, World, MAIN_HOST};
use crate::ids::Id;
use crate::runtime::config::{fail_quietly, UnhandledPanic, LATE_PROBABILITY};
use crate::runtime::context::panic_message;
use crate::runtime::failure::{Cause, Failure, TaskInfo};
use crate::runtime::join_error::JoinError;
use crate::runtime::run_queue::Lane;
use crate::runtime::task::{TaskWaker, MAIN_KEY};
use crate::runtime::trace::Step;
use crate::runtime::{context, watchdog};
use crate::scheduler::{ChoiceKind, Event, Observation, Scheduler, Shape};

impl World {
    // ----- the step loop ---------------------------------------------------

    /// Calls `on_thread_park`, then `on_thread_unpark`, where tokio's
    /// current-thread scheduler parks its thread: no task is runnable, so
    /// the next step moves time or delivers a packet. The hooks run with
    /// this world current and may wake or spawn tasks; the step then polls
    /// them instead, as tokio does not park then.
    pub(super) fn park_hooks(&self) {
        let Some(hooks) = &self.park_hooks else {
            return;
        };
        if self.wakes.any_queued() || self.core.borrow().enabled.len() > 0 {
            return;
        }
        if let Some(park) = &hooks.park {
            park();
        }
        if let Some(unpark) = &hooks.unpark {
            unpark();
        }
    }

    /// Runs `fut` as the main task until it completes, driving every other
    /// task meanwhile. Panics with a report if the simulation fails.
    pub(crate) fn block_on<F: Future>(self: &Rc<Self>, fut: F) -> F::Output {
        match self.try_block_on(fut) {
            Ok(out) => out,
            Err(failure) => fail_quietly(format!(
                "{failure}\n  reproduce: {}",
                crate::runtime::failure::reproduce_line(failure.seed)
            )),
        }
    }

    /// Runs `fut` as the main task until it completes or the simulation
    /// fails; on failure every task has been dropped.
    pub(crate) fn try_block_on<F: Future>(self: &Rc<Self>, fut: F) -> Result<F::Output, Failure> {
        // Tasks left unfinished when this returns wait for the next
        // `block_on` (the watchdog's "undriven" case).
        struct Undriven<'a>(&'a World);
        impl Drop for Undriven<'_> {
            fn drop(&mut self) {
                self.0.driven.set(false);
                let left = self.0.core.try_borrow().is_ok_and(|c| {
                    !c.config.tasks_run_in_background() && c.tasks.iter().any(|(_, t)| !t.finished)
                });
                self.0.watch.set_undriven(left);
            }
        }
        self.watch.set_undriven(false);
        self.driven.set(true);
        self.core.borrow_mut().block_ons += 1;
        let _undriven = Undriven(self);
        let _enter = context::enter(self.clone());
        let _driving = context::drive();
        let mut fut = std::pin::pin!(fut);
        let (main_id, waker, span) = self.start_main();
        loop {
            if self.door.knocked() {
                self.admit_guests();
            }
            if self.injecting {
                self.inject_fault();
            }
            self.park_hooks();
            let next = match self.next_event() {
                Ok(next) => next,
                Err(failure) => return Err(self.fail(*failure)),
            };
            match next {
                Next::Main => {
                    {
                        let mut core = self.core.borrow_mut();
                        if let Some(m) = core.main.as_mut() {
                            m.queued = false;
                        }
                        Self::charge_poll(&mut core);
                    }
                    self.watch
                        .begin(main_id.as_u64(), 0, watchdog::Kind::Main, None);
                    self.set_running(Some(Current {
                        id: main_id,
                        host: MAIN_HOST,
                    }));
                    self.wakes.self_woken.store(false, Ordering::Relaxed);
                    let res = {
                        let _e = span.enter();
                        catch_unwind(AssertUnwindSafe(|| {
                            fut.as_mut().poll(&mut Context::from_waker(&waker))
                        }))
                    };
                    self.set_running(None);
                    match res {
                        Ok(Poll::Ready(out)) => {
                            self.core.borrow_mut().main = None;
                            self.observe(Observation::Finished { task: main_id });
                            if self.liveness.borrow().any {
                                let found = self.check_liveness(true);
                                let walk = self.core.borrow().config.liveness_walk;
                                let found = match found {
                                    Some(v @ crate::runtime::liveness::Violation::Unmet { .. })
                                        if walk > 0 =>
                                    {
                                        self.walk_for_liveness(walk, v)
                                    }
                                    other => other.map(Cause::Liveness).map(|c| self.failure(c)),
                                };
                                if let Some(failure) = found {
                                    drop(out);
                                    return Err(self.fail(failure));
                                }
                            }
                            return Ok(out);
                        }
                        Ok(Poll::Pending) => {
                            let self_woken = self.wakes.self_woken.load(Ordering::Relaxed);
                            self.pending_poll(&mut self.core.borrow_mut(), self_woken, None);
                            self.observe(Observation::Blocked { task: main_id });
                            self.apply_host_ops();
                        }
                        Err(payload) => {
                            let failure = self.failure(Cause::MainPanic {
                                message: panic_message(&*payload),
                                task: self.task_info_main(main_id),
                            });
                            return Err(self.fail(failure));
                        }
                    }
                }
                Next::Idle => self.wait_for_knock(),
                other => self.dispatch(other),
            }
            if self.liveness.borrow().any {
                if let Some(violation) = self.check_liveness(false) {
                    let failure = self.failure(Cause::Liveness(violation));
                    return Err(self.fail(failure));
                }
            }
        }
    }

    /// Runs a step other than a poll of the main future.
    pub(super) fn dispatch(&self, next: Next) {
        match next {
            // Only while the main future is alive (its wakes are dropped
            // once it returned): `try_block_on` polls it itself.
            Next::Main | Next::Idle => {}
            Next::Task(key) => self.run_task(key),
            Next::Advance(to) => {
                Self::progress(&mut self.core.borrow_mut());
                self.move_clock_to(to)
            }
            Next::Deliver(packet) => {
                Self::progress(&mut self.core.borrow_mut());
                self.deliver(packet)
            }
        }
    }

    /// A poll is about to run: the clock moves by the poll's cost unless
    /// it is paused ([`Builder::poll_cost`](crate::runtime::Builder::poll_cost)).
    #[inline(always)]
    pub(super) fn charge_poll(core: &mut Core) {
        if core.work_moves_clock {
            core.now += core.config.poll_cost;
            core.charged += 1;
        }
    }

    /// A step that was not a task spinning: the spin streak ends.
    pub(super) fn progress(core: &mut Core) {
        core.spin_epoch += 1;
        core.spin_repeats = 0;
    }

    /// After a poll that returned `Pending`: the task at `key` (the main
    /// future for `None`) spun if it woke itself during the poll without
    /// running out of coop budget (a forced yield after work), which
    /// extends the streak (counting from its second spin in it); else the
    /// streak ends.
    pub(super) fn pending_poll(&self, core: &mut Core, self_woken: bool, key: Option<usize>) {
        if !self_woken {
            return Self::progress(core);
        }
        // A poll that yielded because its coop budget ran out did work,
        // unless a timer waits while the clock stands (paused, or no poll
        // cost): time then moves only when no task can run, so a loop that
        // never waits starves the clock (as on tokio) and spins. (While
        // polls move the clock, a spin waiting for a timer ends when it
        // fires, which ends the streak; `check_livelock` spares one that
        // waits for a timer further away than the limit.)
        if crate::runtime::budget::poll_exhausted_budget()
            && (core.work_moves_clock || core.timers.next_deadline().is_none())
        {
            return Self::progress(core);
        }
        let epoch = core.spin_epoch;
        let last = match key {
            Some(key) => &mut core.tasks[key].spin_epoch,
            None => &mut core.main_spin_epoch,
        };
        if std::mem::replace(last, epoch) == epoch {
            core.spin_repeats += 1;
        }
        self.check_livelock(core);
    }

    /// Fails the run (through `core.failure`, which the next step reports)
    /// when the spin streak reached the livelock limit.
    pub(super) fn check_livelock(&self, core: &mut Core) {
        let limit = core.config.livelock_steps;
        if limit == 0 || core.spin_repeats < limit || core.failure.is_some() {
            return;
        }
        if core.work_moves_clock && core.timers.next_deadline().is_some() {
            // The polls move the clock towards a timer, which will fire.
            return Self::progress(core);
        }
        let epoch = core.spin_epoch;
        let mut tasks: Vec<TaskInfo> = core
            .tasks
            .iter()
            .filter(|(_, t)| t.spin_epoch == epoch && !t.finished)
            .map(|(k, _)| self.task_info(core, k))
            .collect();
        if core.main_spin_epoch == epoch {
            if let Some(main) = &core.main {
                tasks.insert(0, Self::main_info(core, main.id, true));
            }
        }
        let failure = self.failure_in(
            core,
            Cause::Livelock {
                steps: core.spin_repeats,
                tasks,
            },
        );
        core.failure = Some(failure);
    }

    /// Evaluates the stated liveness properties that are due (all of them
    /// when `at_end`), with no borrow of the world held while the
    /// predicates run; returns a violation: a monitor hot past its limit,
    /// or at the end an "eventually" that did not hold.
    pub(super) fn check_liveness(
        &self,
        at_end: bool,
    ) -> Option<crate::runtime::liveness::Violation> {
        let (step, now) = self.step_and_elapsed();
        let due = self.liveness.borrow().due(if at_end { 0 } else { step });
        for (i, pred) in due {
            let holds = pred();
            self.liveness.borrow_mut().record(i, holds, (step, now));
        }
        let props = self.liveness.borrow();
        let hot = props.hot_too_long(now);
        if at_end {
            hot.or_else(|| props.unmet())
        } else {
            hot
        }
    }

    /// For a walk that began at `began` and stopped with `failure`: the
    /// time of the event it waited for, when that was a time limit reached
    /// after at least half of the walk's time with nothing happening (the
    /// clock stays at the last event's time; the limit is where the walk's
    /// time ran out).
    pub(super) fn waiting(&self, failure: &Failure, began: Duration) -> Option<Duration> {
        let Cause::TimeLimit { limit, next, .. } = &*failure.cause else {
            return None;
        };
        let core = self.core.borrow();
        let (began, last) = (began - core.start, core.now - core.start);
        let quiet = limit.saturating_sub(last);
        (quiet.saturating_mul(2) >= limit.saturating_sub(began)).then_some(*next)
    }

    /// Goes on stepping after the main future returned with an "eventually"
    /// property unmet (`unmet`), for up to `walk` steps: `None` once every
    /// property holds; else the failure: the property unmet, dead (nothing
    /// more could happen) or indeterminate (the walk or a limit ended
    /// first), or whatever else failed the run meanwhile (a panic, a hot
    /// monitor).
    pub(super) fn walk_for_liveness(
        &self,
        walk: u64,
        unmet: crate::runtime::liveness::Violation,
    ) -> Option<Failure> {
        use crate::runtime::liveness::Walked;
        let (start, began) = {
            let core = self.core.borrow();
            (core.step, core.now)
        };
        let walked = |w: &World| w.core.borrow().step - start;
        loop {
            if self.liveness.borrow().all_met() {
                return None;
            }
            if walked(self) >= walk {
                let steps = walked(self);
                let violation = self.liveness.borrow().unmet().unwrap_or(unmet);
                let walked = Walked {
                    steps,
                    dead: false,
                    waiting: None,
                };
                return Some(self.failure(Cause::Liveness(violation.after(walked))));
            }
            if self.injecting {
                self.inject_fault();
            }
            let next = match self.next_event() {
                Ok(next) => next,
                Err(failure) => {
                    let dead = match failure.kind() {
                        crate::runtime::failure::FailureKind::Deadlock => true,
                        crate::runtime::failure::FailureKind::StepLimit
                        | crate::runtime::failure::FailureKind::TimeLimit => false,
                        _ => return Some(*failure),
                    };
                    let steps = walked(self);
                    let violation = self.liveness.borrow().unmet().unwrap_or(unmet);
                    let waiting = self.waiting(&failure, began);
                    let walked = Walked {
                        steps,
                        dead,
                        waiting,
                    };
                    return Some(self.failure(Cause::Liveness(violation.after(walked))));
                }
            };
            self.dispatch(next);
            if let Some(hot) = self.check_liveness(false) {
                return Some(self.failure(Cause::Liveness(hot)));
            }
        }
    }

    /// The current step and simulated time since the start.
    pub(crate) fn step_and_elapsed(&self) -> (u64, Duration) {
        let core = self.core.borrow();
        (core.step, core.now - core.start)
    }

    pub(super) fn start_main(&self) -> (Id, Waker, tracing::Span) {
        let mut core = self.core.borrow_mut();
        assert!(
            !core.failed,
            "this simulation already failed; build a new runtime to run again"
        );
        let id = Self::next_id(&mut core);
        let waker = Waker::from(Arc::new(TaskWaker {
            key: MAIN_KEY,
            id,
            queue: self.wakes.clone(),
        }));
        let span = tracing::trace_span!(parent: &core.hosts[0].span, "task", id = id.as_u64(), main = true);
        core.main = Some(Main { id, queued: false });
        drop(core);
        self.wake(MAIN_KEY, id);
        (id, waker, span)
    }

    #[inline]
    pub(super) fn set_running(&self, current: Option<Current>) {
        if current.is_none() {
            self.watch.end();
        }
        self.core.borrow_mut().current = current;
        crate::runtime::budget::start_poll(current.is_some());
        self.wakes
            .running
            .store(current.map_or(0, |c| c.id.as_u64()), Ordering::Relaxed);
    }

    pub(super) fn next_event(&self) -> Result<Next, Box<Failure>> {
        let mut guard = self.core.borrow_mut();
        let core = &mut *guard;
        if core.failure.is_some() {
            return Err(Box::new(core.failure.take().expect("checked")));
        }
        self.drain_wakes(core);
        if core.work_moves_clock && core.enabled.park_due() && core.timers.any_due(core.now) {
            guard = self.fire_passed_timers(guard);
        }
        let core = &mut *guard;
        core.enabled.park_if_due();
        let now = core.now;
        let mut net = self.net.borrow_mut();
        // The enabled events are the polls, then the deliveries (in send
        // order), then `Advance`; the deliveries are the model's own index,
        // copied into `enabled` only for a scheduler that reads the list.
        let (deliverable, window, latest) = net.schedule(now);
        // A poll takes time: a packet that must arrive before the next poll
        // would end arrives first (the kernel does not wait for the tasks),
        // so no poll is enabled until it has.
        let polls =
            if core.work_moves_clock && latest.is_some_and(|l| l < now + core.config.poll_cost) {
                0
            } else {
                core.enabled.len()
            };
        let delivers = deliverable.len();
        // Where `Advance`, if enabled, moves the clock.
        let mut advance_to = now;
        let mut advance = false;
        let mut late = false;
        if polls == 0 {
            // Nothing can run: time may move to the next timer deadline or
            // window opening, unless a packet must arrive before then.
            let target = match (core.timers.next_deadline(), window) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match target {
                Some(t) if latest.is_some_and(|l| t > l) => {}
                Some(t) if t > core.time_limit && delivers == 0 && self.outside.get() => {
                    return Ok(Next::Idle);
                }
                Some(t) if t > core.time_limit && delivers == 0 => {
                    let limit = core.config.max_time;
                    drop(net);
                    let tasks = self.task_infos(core);
                    return Err(Box::new(self.failure_in(
                        core,
                        Cause::TimeLimit {
                            limit,
                            next: t - core.start,
                            tasks,
                        },
                    )));
                }
                Some(t) if t > core.time_limit => {}
                Some(t) => {
                    advance_to = t;
                    advance = true;
                }
                None => {}
            }
            // Packets are deliverable and time cannot move on before they
            // must arrive: under a scheduler that asks for it, a data
            // choice may still move the clock to the earliest of their
            // latest arrivals (the packets wait), so that "late in its
            // window" is reachable, not only the window's opening.
            if !advance && delivers > 0 && core.late_deliveries {
                if let Some(l) = latest.filter(|&l| l > now && l <= core.time_limit) {
                    let kind = ChoiceKind::Late {
                        probability: LATE_PROBABILITY,
                    };
                    let index = self.scheduler.borrow_mut().choose(kind, 2);
                    self.record_choice(core, kind, index, 2);
                    if index == 1 {
                        advance_to = l;
                        advance = true;
                        late = true;
                    }
                }
            }
            if delivers == 0 && !advance {
                if self.outside.get() || self.may_knock() {
                    return Ok(Next::Idle);
                }
                drop(net);
                let tasks = self.task_infos(core);
                return Err(Box::new(self.failure_in(core, Cause::Deadlock { tasks })));
            }
        }
        if core.step >= core.config.max_steps {
            drop(net);
            let tasks = self.task_infos(core);
            let limit = core.config.max_steps;
            return Err(Box::new(
                self.failure_in(core, Cause::StepLimit { limit, tasks }),
            ));
        }
        // A late delivery was chosen: the packets wait, time moves.
        let delivers = if late { 0 } else { delivers };
        let n = polls + delivers + usize::from(advance);
        let shape = Shape {
            polls,
            queued: core.enabled.before_drivers().min(polls),
            deliveries: delivers,
            advance,
        };
        let index = {
            let mut scheduler = self.scheduler.borrow_mut();
            match scheduler.pick_shape(shape) {
                Some(index) => index,
                None => {
                    let events = &mut core.events;
                    events.clear();
                    events.extend(
                        core.enabled
                            .iter()
                            .take(polls)
                            .map(|r| Event::Poll(Self::runnable_id(&core.tasks, &core.main, r))),
                    );
                    events.extend(deliverable.iter().take(delivers).map(Event::Deliver));
                    if advance {
                        events.push(Event::Advance);
                    }
                    scheduler.pick(events)
                }
            }
        };
        assert!(
            index < n,
            "the scheduler picked option {index} but only {n} events are enabled"
        );
        let event = if index < polls {
            Event::Poll(Self::runnable_id(
                &core.tasks,
                &core.main,
                core.enabled.get(index),
            ))
        } else if index < polls + delivers {
            Event::Deliver(
                deliverable
                    .get(index - polls)
                    .expect("the index is within the deliveries"),
            )
        } else {
            Event::Advance
        };
        drop(net);
        let key = if index < polls {
            // A simulated thread runs whenever the OS lets it: taking one
            // out of queue order is not unlike tokio.
            let thread =
                |key: usize| key != MAIN_KEY && matches!(core.cold[key].origin, Origin::Thread(_));
            if index != 0 && core.unlike_tokio.is_none() && !thread(core.enabled.get(index).key()) {
                core.unlike_tokio = Some(core.step);
            }
            core.enabled.take(index).key()
        } else {
            MAIN_KEY // unused: only a `Poll` has a key
        };
        core.trace.push(Step::Pick {
            index: index as u32,
            of: n as u32,
            event,
        });
        core.step += 1;
        Ok(match event {
            Event::Poll(_) if key == MAIN_KEY => Next::Main,
            Event::Poll(_) => Next::Task(key),
            Event::Advance => Next::Advance(advance_to),
            Event::Deliver(p) => Next::Deliver(p),
        })
    }

    /// The clock moved past deadlines while tasks ran (their polls' cost):
    /// tokio's driver fires them when it parks, and the tasks they wake
    /// join the queue behind the ones already in it, before the yielded
    /// ones. Rare next to a step: kept out of the step loop's code.
    #[cold]
    #[inline(never)]
    fn fire_passed_timers<'a>(
        &'a self,
        mut guard: std::cell::RefMut<'a, Core>,
    ) -> std::cell::RefMut<'a, Core> {
        let core = &mut *guard;
        let mut fired = std::mem::take(&mut core.fire_buf);
        core.timers.fire_until(core.now, &mut fired);
        Self::progress(core);
        drop(guard);
        self.wake_fired(fired);
        let mut guard = self.core.borrow_mut();
        self.drain_wakes(&mut guard);
        guard
    }

    /// Moves queued wakes into the enabled set, dropping stale ones and
    /// holding back those of paused hosts.
    // Always inlined: the step loop's own copy is what its speed rests on
    // (the simulated threads' loop calls it too).
    #[inline(always)]
    pub(super) fn drain_wakes(&self, core: &mut Core) {
        if !self.wakes.take_into(&mut core.wake_buf) {
            return;
        }
        let mut sched = self.scheduler.borrow_mut();
        let told_at = self
            .story
            .as_ref()
            .map(|_| (core.step, core.trace.len() as u64, core.now - core.start));
        for w in core.wake_buf.drain(..) {
            // A task already in the enabled set (or held back) is not
            // added again: its later wakes before its poll are no-ops.
            let live = if w.key == MAIN_KEY {
                match core.main.as_mut() {
                    Some(m) if m.id == w.id && !m.queued => {
                        m.queued = true;
                        true
                    }
                    _ => false,
                }
            } else {
                match core.tasks.get_mut(w.key) {
                    Some(s) if s.id == w.id && !s.finished && !s.queued => {
                        let host = &mut core.hosts[s.host.index()];
                        if host.paused {
                            if !host.deferred.iter().any(|d| d.key == w.key && d.id == w.id) {
                                host.deferred.push(w);
                            }
                            continue;
                        }
                        s.queued = true;
                        true
                    }
                    _ => false,
                }
            };
            if live {
                let lane = if w.yielded {
                    Lane::Yielded
                } else {
                    Lane::Woken
                };
                core.enabled.push(w.key, lane);
                if let (Some(story), Some((step, point, at))) = (&self.story, told_at) {
                    if w.by.is_none() && w.key != MAIN_KEY {
                        let host = core.tasks[w.key].host;
                        story.borrow_mut().push(crate::story::Told {
                            step,
                            point,
                            at,
                            what: crate::story::Happening::Woken { task: w.id, host },
                        });
                    }
                }
                if self.observing {
                    sched.observe(&Observation::Woken {
                        task: w.id,
                        by: w.by,
                    });
                }
            }
        }
    }

    // Always inlined, as `drain_wakes`.
    #[inline(always)]
    pub(super) fn run_task(&self, key: usize) {
        let (mut cell, span, id, host, abort, origin) = {
            let mut guard = self.core.borrow_mut();
            let core = &mut *guard;
            let slot = core
                .tasks
                .get_mut(key)
                .expect("the enabled set holds only live tasks");
            let cell = slot
                .cell
                .take()
                .expect("a task is not polled while it is being polled");
            slot.queued = false;
            let (id, host, abort) = (slot.id, slot.host, slot.abort_requested);
            let span = if core.spans.is_empty() {
                None
            } else {
                core.spans.get(&key).cloned()
            };
            let origin = core.cold[key].origin;
            Self::charge_poll(core);
            (cell, span, id, host, abort, origin)
        };
        let (kind, at) = match origin {
            Origin::Spawn(l) => (watchdog::Kind::Spawn, Some(l)),
            Origin::Blocking(l) => (watchdog::Kind::Blocking, Some(l)),
            Origin::HostEntry => (watchdog::Kind::HostEntry, None),
            Origin::Thread(_) => (watchdog::Kind::Thread, None),
        };
        self.watch.begin(id.as_u64(), host.index() as u32, kind, at);
        self.set_running(Some(Current { id, host }));
        self.wakes.self_woken.store(false, Ordering::Relaxed);
        let res = {
            let _e = span.as_ref().map(tracing::Span::enter);
            if abort {
                crate::runtime::task::cancel(cell.as_mut(), id);
                Ok(Poll::Ready(()))
            } else {
                catch_unwind(AssertUnwindSafe(|| cell.as_mut().poll()))
            }
        };
        self.set_running(None);
        match res {
            Ok(Poll::Pending) => {
                {
                    let mut core = self.core.borrow_mut();
                    let slot = &mut core.tasks[key];
                    slot.cell = Some(cell);
                    // Woken during its own poll: only the task itself ran.
                    let self_woken = self.wakes.self_woken.load(Ordering::Relaxed);
                    self.pending_poll(&mut core, self_woken, Some(key));
                }
                self.observe(Observation::Blocked { task: id });
                self.apply_host_ops();
            }
            Ok(Poll::Ready(())) => {
                Self::progress(&mut self.core.borrow_mut());
                self.finish(key, cell);
                self.apply_host_ops();
            }
            Err(payload) => {
                let policy = {
                    let core = self.core.borrow();
                    match core.config.unhandled_panic {
                        Some(policy) => policy,
                        // Someone can observe it: the handle's holder.
                        None if core.tasks[key].has_handle => UnhandledPanic::Ignore,
                        // Nobody can: reported when asked to, and always for
                        // a host's entry (its process's main thread).
                        None if core.config.report_unobserved_panics
                            || matches!(origin, Origin::HostEntry) =>
                        {
                            UnhandledPanic::ShutdownRuntime
                        }
                        None => UnhandledPanic::Ignore,
                    }
                };
                match policy {
                    UnhandledPanic::Ignore => {
                        let mut core = self.core.borrow_mut();
                        if core.earlier_panic.is_none() {
                            let task = self.task_info(&core, key).to_string();
                            core.earlier_panic = Some((task, panic_message(&*payload)));
                        }
                        drop(core);
                        cell.as_mut().finish_with(JoinError::panic(id, payload));
                        self.finish(key, cell);
                    }
                    UnhandledPanic::ShutdownRuntime => {
                        let message = panic_message(&*payload);
                        let task = {
                            let core = self.core.borrow();
                            self.task_info(&core, key)
                        };
                        drop(payload);
                        drop(cell);
                        let failure = self.failure(Cause::TaskPanic { message, task });
                        self.core.borrow_mut().failure = Some(failure);
                    }
                }
            }
        }
    }

    /// Moves the clock forward by `by` at once and fires what is due (the
    /// simulated `tokio::time::advance`).
    pub(crate) fn jump(&self, by: Duration) {
        let to = self.now() + by;
        self.move_clock_to(to);
    }

    /// Sets the clock to `to` (or leaves it where it is when work already
    /// moved it past `to`), then wakes every timer due
    /// by then, outside the borrow.
    pub(super) fn move_clock_to(&self, to: Duration) {
        let (now, fired) = {
            let mut core = self.core.borrow_mut();
            // Never backwards: a deadline the polls' cost already passed
            // fires now.
            core.now = core.now.max(to);
            core.advances += 1;
            let now = core.now;
            // Many advances are to a packet's arrival, with no timer due.
            let fired = core.timers.any_due(now).then(|| {
                let mut buf = std::mem::take(&mut core.fire_buf);
                core.timers.fire_until(now, &mut buf);
                buf
            });
            (now, fired)
        };
        self.tell(|| crate::story::Happening::Advanced);
        self.observe(Observation::Advanced { to: now });
        if let Some(fired) = fired {
            self.wake_fired(fired);
        }
    }

    /// Wakes the timers `fire_until` collected, outside the borrow, and
    /// gives the buffer back for the next firing.
    fn wake_fired(&self, mut fired: Vec<std::task::Waker>) {
        for w in fired.drain(..) {
            w.wake();
        }
        self.core.borrow_mut().fire_buf = fired;
    }

    /// A host's entry point returned an error: the simulation fails at the
    /// next step, whatever the panic policy.
    pub(crate) fn fail_host(&self, message: String) {
        let task = {
            let core = self.core.borrow();
            let current = core.current.expect("a host entry point runs as a task");
            let key = core
                .tasks
                .iter()
                .find(|(_, s)| s.id == current.id)
                .map(|(k, _)| k)
                .expect("the running task has a slot");
            self.task_info(&core, key)
        };
        let failure = self.failure(Cause::HostError { message, task });
        let mut core = self.core.borrow_mut();
        if core.failure.is_none() {
            core.failure = Some(failure);
        }
    }
}
