// SPDX-License-Identifier: GPL-2.0

//! What a PMU's `event_init` works with: the [`EventInit`] event it is given and the
//! [`Prepared`] event it returns. It calls what sleeps or reads the opener's credentials, which
//! only `event_init` may do, and the C local-probe functions of
//! `kernel/trace/trace_event_perf.c`, which are not exported: only built-in PMUs attach probes.

use super::{Event, Pmu};
use crate::{bindings, prelude::*};
#[cfg(any(CONFIG_KPROBE_EVENTS, CONFIG_UPROBE_EVENTS))]
use crate::{error::to_result, str::CStr};
use core::{cell::Cell, marker::PhantomData, ops::Deref};

/// What an event being initialised holds, besides what the PMU's [`Pmu::destroy`] releases.
///
/// The PMU's `Adapter` owns it, in its `event_init` callback's frame, and the [`EventInit`]
/// methods that attach something to the event record it there: whatever `event_init` does with
/// its values, the adapter hands what the event holds to the event's destroy if `event_init`
/// succeeds, and releases it at once if not.
#[derive(Clone, Copy)]
pub(super) enum Held {
    /// Nothing.
    Nothing,
    /// A local kprobe, of `perf_local_kprobe_init()`.
    #[cfg(CONFIG_KPROBE_EVENTS)]
    Kprobe,
    /// A local uprobe, of `perf_local_uprobe_init()`.
    #[cfg(CONFIG_UPROBE_EVENTS)]
    Uprobe,
}

/// An event that the perf core is initialising, given to [`Pmu::event_init`].
///
/// It can only be consumed by what makes a [`Prepared`] event: [`EventInit::accept`], or for a
/// PMU whose events are trace events, [`EventInit::init_kprobe`] or [`EventInit::init_uprobe`].
/// These, and the capability checks, which read the opener's credentials, exist only while the
/// event is initialised, in process context, in the opener's task: the PMU's other callbacks,
/// which may run in atomic context or in an NMI, cannot reach them. What they attach to the
/// event is released if `event_init` fails, whatever it did with the [`Prepared`] value.
///
/// The opener is the task that calls `perf_event_open()`, except for an event inherited at
/// `fork()` (`attr.inherit`): the perf core initialises the child's copy in the forking task, the
/// monitored task, which need not be the task, nor the user, that opened the parent event.
/// There the capability checks see the forking task's credentials, and a copy of a user string
/// at the addresses of the parent event's attributes reads the forking task's memory, as the C
/// PMUs' `event_init` does.
///
/// # Invariants
///
/// `event` is being initialised by the perf core for the PMU `T`, in process context, in the
/// task that opens it or, for an inherited event, in the forking task. `held` says what the
/// event holds, and is read by the PMU's adapter once `event_init` returns.
pub struct EventInit<'a, T: Pmu> {
    event: &'a Event,
    held: &'a Cell<Held>,
    _p: PhantomData<T>,
}

impl<'a, T: Pmu> Deref for EventInit<'a, T> {
    type Target = Event;

    fn deref(&self) -> &Event {
        self.event
    }
}

impl<'a, T: Pmu> EventInit<'a, T> {
    /// Creates the [`EventInit`] of `event`, whose holdings are recorded in `held`.
    ///
    /// # Safety
    ///
    /// `event` must be valid for `'a` and being initialised by the perf core for the PMU `T`, in
    /// process context, in the task that opens it or, for an inherited event, the forking task;
    /// `held` must hold [`Held::Nothing`].
    pub(super) unsafe fn new(event: *mut bindings::perf_event, held: &'a Cell<Held>) -> Self {
        // INVARIANT: By the function requirements.
        Self {
            // SAFETY: By the function requirements `event` is valid for `'a`.
            event: unsafe { Event::from_raw(event) },
            held,
            _p: PhantomData,
        }
    }

    /// Returns whether the opener may monitor the system with perf (the C `perfmon_capable()`:
    /// `CAP_PERFMON` or `CAP_SYS_ADMIN` in the initial user namespace).
    ///
    /// As with every capability check, a successful one marks the task as having used a
    /// privilege.
    pub fn perfmon_capable(&self) -> bool {
        // SAFETY: `perfmon_capable` only reads the credentials of the current task, which exist
        // in the process context where `event_init` runs.
        unsafe { bindings::perfmon_capable() }
    }

    /// Returns whether the opener has `CAP_SYS_ADMIN` in the initial user namespace.
    pub fn sys_admin_capable(&self) -> bool {
        // The capability numbers are small constants of the user-space ABI.
        const CAP_SYS_ADMIN: i32 = bindings::CAP_SYS_ADMIN as i32;
        // SAFETY: `capable` only reads the credentials of the current task, which exist in the
        // process context where `event_init` runs.
        unsafe { bindings::capable(CAP_SYS_ADMIN) }
    }

    /// Accepts the event as it is, for a PMU whose events are not trace events.
    pub fn accept(self) -> Prepared<'a, T> {
        crate::build_assert!(
            !T::TRACE_EVENTS,
            "the events of a trace-event PMU must hold a probe"
        );
        Prepared::new()
    }

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

/// An event that [`Pmu::event_init`] prepared, and returns to the perf core.
///
/// It is the proof that `event_init` consumed its [`EventInit`] by accepting the event or by
/// attaching a probe to it. What the event holds is not in this value but with the PMU's
/// adapter: dropping or forgetting a `Prepared` releases nothing and leaks nothing, and if
/// `event_init` fails after preparing the event, the adapter releases what it attached.
pub struct Prepared<'a, T: Pmu> {
    _p: PhantomData<(&'a Event, T)>,
}

impl<T: Pmu> Prepared<'_, T> {
    pub(super) fn new() -> Self {
        Self { _p: PhantomData }
    }
}
