// SPDX-License-Identifier: GPL-2.0

//! The probes of a trace-event PMU's events: [`EventInit::init_kprobe`] and
//! [`EventInit::init_uprobe`] attach a local kprobe or uprobe to an event, and the event's
//! destroy disarms it at once and queues it on the PMU's [`Reaper`]s, which release the
//! probes closed so far in one batch. It calls the C local-probe functions of
//! `kernel/trace/trace_event_perf.c`, which are not exported: only built-in PMUs use them.

use super::{pmu::Adapter, registration::PmuData, EventInit, Pmu, Reap, Reaper};
use crate::{bindings, prelude::*};
use core::ptr::NonNull;
#[cfg(any(CONFIG_KPROBE_EVENTS, CONFIG_UPROBE_EVENTS))]
use {
    super::{init::Held, Prepared},
    crate::{error::to_result, str::CStr},
};

impl<'a, T: Pmu> EventInit<'a, T> {
    /// Attaches a new local kprobe to the event.
    ///
    /// The probe is on `func` (plus `perf_event_attr::probe_offset`), or at the address
    /// `perf_event_attr::kprobe_addr` when `func` is `None`; on the function's return when
    /// `retprobe` is set. The probe is released with the event, or at once if `event_init`
    /// fails.
    ///
    /// # Examples
    ///
    /// A PMU that attaches a kprobe, forgets the [`Prepared`] value and fails: the kprobe is
    /// gone all the same once the event's creation has failed.
    ///
    /// ```
    /// use core::sync::atomic::{AtomicBool, Ordering};
    /// use kernel::bindings;
    /// use kernel::c_str;
    /// use kernel::perf::{EventInit, Pmu, Prepared, Registration};
    /// use kernel::prelude::*;
    ///
    /// // A function with a kprobe site that nothing calls while the doctests run.
    /// const PROBED: &CStr = c_str!("sys_ni_syscall");
    ///
    /// /// Whether a kprobe is registered on `PROBED`.
    /// fn probed() -> bool {
    ///     let mut on_entry = false;
    ///     // SAFETY: `PROBED` is a valid string; any address may be adjusted as a kprobe's.
    ///     let addr = unsafe {
    ///         let addr = bindings::kallsyms_lookup_name(PROBED.as_char_ptr());
    ///         bindings::arch_adjust_kprobe_addr(addr, 0, &mut on_entry)
    ///     };
    ///     // SAFETY: `get_kprobe()` only reads the kprobe table, under `rcu_read_lock()`.
    ///     unsafe {
    ///         bindings::rcu_read_lock();
    ///         let kprobe = bindings::get_kprobe(addr.cast());
    ///         bindings::rcu_read_unlock();
    ///         !kprobe.is_null()
    ///     }
    /// }
    ///
    /// static ATTACHED: AtomicBool = AtomicBool::new(false);
    ///
    /// struct Forgetful;
    ///
    /// #[vtable]
    /// impl Pmu for Forgetful {
    ///     const NAME: &'static CStr = c_str!("rust_doctest_forgetful");
    ///     const TRACE_EVENTS: bool = true;
    ///
    ///     fn event_init(event: EventInit<'_, Self>) -> Result<Prepared<'_, Self>> {
    ///         if event.attr_type() != event.pmu_type() {
    ///             return Err(ENOENT);
    ///         }
    ///         if !event.perfmon_capable() {
    ///             return Err(EACCES);
    ///         }
    ///         let prepared = event.init_kprobe(Some(PROBED), false)?;
    ///         // What the event holds is not in `prepared`: forgetting it drops nothing.
    ///         #[allow(clippy::forget_non_drop)]
    ///         core::mem::forget(prepared);
    ///         ATTACHED.store(probed(), Ordering::Relaxed);
    ///         Err(EINVAL)
    ///     }
    /// }
    ///
    /// let pmu = Registration::<Forgetful>::new_builtin()?;
    /// // SAFETY: All-zero is a valid `perf_event_attr`.
    /// let mut attr: bindings::perf_event_attr = unsafe { core::mem::zeroed() };
    /// attr.type_ = pmu.pmu_type();
    /// attr.size = core::mem::size_of::<bindings::perf_event_attr>() as u32;
    /// // SAFETY: `attr` is valid; a CPU-wide event on CPU 0 of no task, with no handler.
    /// let event = unsafe {
    ///     bindings::perf_event_create_kernel_counter(
    ///         &mut attr,
    ///         0,
    ///         core::ptr::null_mut(),
    ///         None,
    ///         core::ptr::null_mut(),
    ///     )
    /// };
    /// assert_eq!(kernel::error::from_err_ptr(event).err(), Some(EINVAL));
    /// // The kprobe was there while `event_init` ran, and is gone.
    /// assert!(ATTACHED.load(Ordering::Relaxed));
    /// assert!(!probed());
    /// // SAFETY: The PMU's `event_init` fails for every event: it has none.
    /// unsafe { pmu.unregister_unused() };
    /// # Ok::<(), Error>(())
    /// ```
    #[cfg(CONFIG_KPROBE_EVENTS)]
    pub fn init_kprobe(self, func: Option<&CStr>, retprobe: bool) -> Result<Prepared<'a, T>> {
        crate::build_assert!(T::TRACE_EVENTS, "only trace-event PMUs attach probes");
        let func = func.map_or(core::ptr::null(), CStr::as_char_ptr);
        // SAFETY: The event is valid and being initialised by its PMU, in process context;
        // `func` is null or a valid string that the callee copies.
        to_result(unsafe {
            bindings::perf_local_kprobe_init(self.event.as_raw(), func, retprobe)
        })?;
        // INVARIANT: The event holds the kprobe just attached.
        self.held.set(Held::Kprobe);
        Ok(Prepared::new())
    }

    /// Attaches a new local uprobe to the event.
    ///
    /// The probe is in the file at `path`, at the file offset `perf_event_attr::probe_offset`;
    /// on the function's return when `retprobe` is set. A non-zero `ref_ctr_offset` is the file
    /// offset of the probe's reference counter (its USDT semaphore). The probe is released with
    /// the event, or at once if `event_init` fails.
    #[cfg(CONFIG_UPROBE_EVENTS)]
    pub fn init_uprobe(
        self,
        path: &CStr,
        ref_ctr_offset: usize,
        retprobe: bool,
    ) -> Result<Prepared<'a, T>> {
        crate::build_assert!(T::TRACE_EVENTS, "only trace-event PMUs attach probes");
        // SAFETY: The event is valid and being initialised by its PMU, in process context;
        // `path` is a valid string that the callee copies.
        to_result(unsafe {
            bindings::perf_local_uprobe_init(
                self.event.as_raw(),
                path.as_char_ptr(),
                ref_ctr_offset,
                retprobe,
            )
        })?;
        // INVARIANT: The event holds the uprobe just attached.
        self.held.set(Held::Uprobe);
        Ok(Prepared::new())
    }
}

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

impl<T: Pmu> Adapter<T> {
    /// Queues the probe that the destroy of `event` disarmed for release with the next batch.
    ///
    /// # Safety
    ///
    /// `event` must be a valid event of this PMU; `probe` must be what the disarm of its probe,
    /// of the kind `P`, returned.
    #[cfg(any(CONFIG_KPROBE_EVENTS, CONFIG_UPROBE_EVENTS))]
    unsafe fn defer_disarmed<P: DisarmedProbe>(
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
        // SAFETY: By the function requirements the event's PMU is this registered PMU, whose
        // data outlives its events.
        let data = unsafe { PmuData::<T>::from_pmu((*event).pmu) };
        match data.probes.as_deref() {
            Some(reapers) => P::reaper(reapers).defer(probe),
            None => P::reap(&mut [probe]),
        }
    }

    /// The destroy of an event that holds a kprobe: disarms it at once and defers its release.
    /// Also the release of the kprobe of an event whose `event_init` failed.
    ///
    /// # Safety
    ///
    /// `event` must be a valid event of this PMU, holding a kprobe, being freed or failing its
    /// initialisation.
    #[cfg(CONFIG_KPROBE_EVENTS)]
    pub(super) unsafe extern "C" fn kprobe_destroy_callback(event: *mut bindings::perf_event) {
        // SAFETY: By the function requirements the event holds a local kprobe, released once.
        let probe = unsafe { bindings::perf_local_kprobe_disarm(event) };
        // SAFETY: `probe` is what the disarm of the event's kprobe returned.
        unsafe { Self::defer_disarmed::<DisarmedKprobe>(event, probe) };
    }

    /// The destroy of an event that holds a uprobe: disarms it at once and defers its release.
    /// Also the release of the uprobe of an event whose `event_init` failed.
    ///
    /// # Safety
    ///
    /// `event` must be a valid event of this PMU, holding a uprobe, being freed or failing its
    /// initialisation.
    #[cfg(CONFIG_UPROBE_EVENTS)]
    pub(super) unsafe extern "C" fn uprobe_destroy_callback(event: *mut bindings::perf_event) {
        // SAFETY: By the function requirements the event holds a local uprobe, released once.
        let probe = unsafe { bindings::perf_local_uprobe_disarm(event) };
        // SAFETY: `probe` is what the disarm of the event's uprobe returned.
        unsafe { Self::defer_disarmed::<DisarmedUprobe>(event, probe) };
    }
}
