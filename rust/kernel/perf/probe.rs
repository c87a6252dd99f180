// SPDX-License-Identifier: GPL-2.0

//! The release of the probes that [`EventInit::init_kprobe`] and [`EventInit::init_uprobe`]
//! attach to the events of a trace-event PMU: the event's destroy disarms its probe at once and
//! queues it on the PMU's [`Reaper`]s, which release the probes closed so far in one batch. It
//! calls the C local-probe functions of `kernel/trace/trace_event_perf.c`, which are not
//! exported: only built-in PMUs use them.
//!
//! [`EventInit::init_kprobe`]: super::EventInit::init_kprobe
//! [`EventInit::init_uprobe`]: super::EventInit::init_uprobe

// Without kprobe and uprobe events, no event holds a probe: nothing is queued.
#![cfg_attr(not(any(CONFIG_KPROBE_EVENTS, CONFIG_UPROBE_EVENTS)), allow(dead_code))]

use super::{registration::PmuData, Pmu, Reap, Reaper};
use crate::{bindings, prelude::*};
use core::ptr::NonNull;

/// The trace event of a local kprobe that its event's destroy disarmed, to be released in a
/// batch.
///
/// # Invariants
///
/// `0` was returned by `perf_local_kprobe_disarm()` and is not released yet; it is released by
/// [`Reap::reap`], once.
#[repr(transparent)]
struct DisarmedKprobe(NonNull<bindings::trace_event_call>);

/// The trace event of a local uprobe that its event's destroy disarmed, to be released in a
/// batch.
///
/// # Invariants
///
/// As for [`DisarmedKprobe`], with `perf_local_uprobe_disarm()`.
#[repr(transparent)]
struct DisarmedUprobe(NonNull<bindings::trace_event_call>);

// SAFETY: The trace event of a disarmed probe may be released from any task.
unsafe impl Send for DisarmedKprobe {}

// SAFETY: As for `DisarmedKprobe`.
unsafe impl Send for DisarmedUprobe {}

/// A kind of disarmed probe, and its reaper among a PMU's.
trait DisarmedProbe: Reap {
    /// # Safety
    ///
    /// `probe` must be the trace event that the disarm of a probe of this kind returned, not
    /// yet released.
    unsafe fn new(probe: NonNull<bindings::trace_event_call>) -> Self;

    fn reaper(reapers: &ProbeReapers) -> &Reaper<Self>;
}

impl DisarmedProbe for DisarmedKprobe {
    unsafe fn new(probe: NonNull<bindings::trace_event_call>) -> Self {
        // INVARIANT: By the function requirements.
        Self(probe)
    }

    fn reaper(reapers: &ProbeReapers) -> &Reaper<Self> {
        &reapers.kprobes
    }
}

impl DisarmedProbe for DisarmedUprobe {
    unsafe fn new(probe: NonNull<bindings::trace_event_call>) -> Self {
        // INVARIANT: By the function requirements.
        Self(probe)
    }

    fn reaper(reapers: &ProbeReapers) -> &Reaper<Self> {
        &reapers.uprobes
    }
}

/// The items of `batch` as the C array of trace events the release functions take.
fn trace_events<P: DisarmedProbe>(batch: &mut [P]) -> (*mut *mut bindings::trace_event_call, u32) {
    // A reaper's batches are small: at most `PROBE_REAPER_CAPACITY` items.
    let n = batch.len() as u32;
    // CAST: Both probe types are `repr(transparent)` wrappers around a non-null pointer.
    (batch.as_mut_ptr().cast(), n)
}

// The release functions are not exported: these are not inlined into a module whose PMU data
// holds (empty) reapers of probes.
impl Reap for DisarmedKprobe {
    #[inline(never)]
    fn reap(batch: &mut [Self]) {
        let (calls, n) = trace_events(batch);
        // SAFETY: By the type invariants each item is a disarmed kprobe's trace event, released
        // here once: a reaper drops the items it reaped, and they do nothing when dropped.
        #[cfg(CONFIG_KPROBE_EVENTS)]
        unsafe {
            bindings::perf_local_kprobes_release(calls, n)
        };
        #[cfg(not(CONFIG_KPROBE_EVENTS))]
        let _ = (calls, n);
    }
}

impl Reap for DisarmedUprobe {
    #[inline(never)]
    fn reap(batch: &mut [Self]) {
        let (calls, n) = trace_events(batch);
        // SAFETY: As for `DisarmedKprobe`, with uprobes.
        #[cfg(CONFIG_UPROBE_EVENTS)]
        unsafe {
            bindings::perf_local_uprobes_release(calls, n)
        };
        #[cfg(not(CONFIG_UPROBE_EVENTS))]
        let _ = (calls, n);
    }
}

/// How many disarmed probes of each kind a trace-event PMU queues for release (see
/// [`Reaper`]): tools detach hundreds to a few thousand probes at once.
const PROBE_REAPER_CAPACITY: usize = 1024;

/// The reapers of the probes of a trace-event PMU's events.
#[pin_data]
pub(super) struct ProbeReapers {
    #[pin]
    kprobes: Reaper<DisarmedKprobe>,
    #[pin]
    uprobes: Reaper<DisarmedUprobe>,
}

impl ProbeReapers {
    pub(super) fn new() -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            kprobes <- crate::new_reaper!(PROBE_REAPER_CAPACITY, "perf_kprobe_reaper"),
            uprobes <- crate::new_reaper!(PROBE_REAPER_CAPACITY, "perf_uprobe_reaper"),
        })
    }
}

/// Queues the probe that the destroy of `event` disarmed for release with the next batch.
///
/// # Safety
///
/// `event` must be a valid event of the PMU `T`; `probe` must be what the disarm of its probe,
/// of the kind `P`, returned.
#[cfg(any(CONFIG_KPROBE_EVENTS, CONFIG_UPROBE_EVENTS))]
unsafe fn defer_disarmed<T: Pmu, P: DisarmedProbe>(
    event: *mut bindings::perf_event,
    probe: *mut bindings::trace_event_call,
) {
    // A probe that could not be disarmed stays allocated.
    let Some(probe) = NonNull::new(probe) else {
        return;
    };
    // SAFETY: By the function requirements `probe` is a disarmed probe of the kind `P`, not
    // released yet.
    let probe = unsafe { P::new(probe) };
    // SAFETY: By the function requirements the event's PMU is `T`, registered, whose data
    // outlives its events.
    let data = unsafe { PmuData::<T>::from_pmu((*event).pmu) };
    match data.probes.as_deref() {
        Some(reapers) => P::reaper(reapers).defer(probe),
        None => P::reap(&mut [probe]),
    }
}

/// The destroy of an event that holds a kprobe: disarms it at once and defers its release. Also
/// the release of the kprobe of an event whose `event_init` failed.
///
/// # Safety
///
/// `event` must be a valid event of the PMU `T`, holding a kprobe, being freed or failing its
/// initialisation.
#[cfg(CONFIG_KPROBE_EVENTS)]
pub(super) unsafe extern "C" fn kprobe_destroy<T: Pmu>(event: *mut bindings::perf_event) {
    // SAFETY: By the function requirements the event holds a local kprobe, released once.
    let probe = unsafe { bindings::perf_local_kprobe_disarm(event) };
    // SAFETY: `probe` is what the disarm of the event's kprobe returned.
    unsafe { defer_disarmed::<T, DisarmedKprobe>(event, probe) };
}

/// The destroy of an event that holds a uprobe: disarms it at once and defers its release. Also
/// the release of the uprobe of an event whose `event_init` failed.
///
/// # Safety
///
/// `event` must be a valid event of the PMU `T`, holding a uprobe, being freed or failing its
/// initialisation.
#[cfg(CONFIG_UPROBE_EVENTS)]
pub(super) unsafe extern "C" fn uprobe_destroy<T: Pmu>(event: *mut bindings::perf_event) {
    // SAFETY: By the function requirements the event holds a local uprobe, released once.
    let probe = unsafe { bindings::perf_local_uprobe_disarm(event) };
    // SAFETY: `probe` is what the disarm of the event's uprobe returned.
    unsafe { defer_disarmed::<T, DisarmedUprobe>(event, probe) };
}
