// SPDX-License-Identifier: GPL-2.0

//! The [`Pmu`] trait, the callbacks of a PMU, with its sysfs [`FormatAttribute`]s, and the
//! `Adapter` trampolines through which the perf core calls them: they turn the C pointers into
//! [`Event`]s and [`EventInit`]s and call the PMU's methods. `Adapter::PMU` is the PMU's C
//! `struct pmu`; for the callbacks a PMU leaves out, it names the perf core's C functions (the
//! software and trace events') instead.

use super::{event_init::Held, Event, EventInit, Prepared, TaskContext};
use crate::{
    bindings,
    error::{from_result, Result, VTABLE_DEFAULT_ERROR},
    ffi::c_int,
    prelude::*,
    str::CStr,
};
use core::{cell::Cell, marker::PhantomData, mem::MaybeUninit};

/// An attribute of a PMU's sysfs `format` directory: which bits of the event attributes hold
/// one of its parameters, as in `retprobe` = `config:0`.
///
/// This is the Rust counterpart of the C `PMU_FORMAT_ATTR()`.
pub struct FormatAttribute {
    pub(super) name: &'static CStr,
    pub(super) value: &'static CStr,
}

impl FormatAttribute {
    /// Creates a format attribute: the file `name` reads `value` and a newline.
    pub const fn new(name: &'static CStr, value: &'static CStr) -> Self {
        Self { name, value }
    }
}

/// A PMU: the callbacks through which the perf core creates and schedules its events.
///
/// Corresponds to the callbacks of the C `struct pmu`. [`Pmu::event_init`] is required. The
/// others default to what a software-context PMU whose events are trace events needs: `add` and
/// `del` to `perf_trace_add` and `perf_trace_del` (available only with [`Pmu::TRACE_EVENTS`]),
/// and `start`, `stop` and `read` to the software events' `perf_swevent_start`,
/// `perf_swevent_stop` and `perf_swevent_read`. The `flags` of `add`, `del`, `start` and `stop`
/// are the C `PERF_EF_*` flags.
#[vtable]
pub trait Pmu: Sized + 'static {
    /// The name of the PMU in sysfs (`/sys/bus/event_source/devices/NAME`).
    const NAME: &'static CStr;

    /// The context in which the perf core schedules the PMU's events.
    const TASK_CONTEXT: TaskContext = TaskContext::Software;

    /// The attributes of the PMU's sysfs `format` directory.
    const FORMAT: &'static [FormatAttribute] = &[];

    /// Whether the PMU's events cannot interrupt to take a sample (the C
    /// `PERF_PMU_CAP_NO_INTERRUPT`): `perf_event_open()` refuses sampling events (a non-zero
    /// `sample_period`) with `EOPNOTSUPP`, after [`Pmu::event_init`] has seen them. In-kernel
    /// counters are not checked.
    const NO_INTERRUPT: bool = false;

    /// Whether the PMU's events are trace events: each one that [`Pmu::event_init`] accepts
    /// holds a probe (see [`EventInit::init_kprobe`]) and takes ftrace filters and BPF
    /// programs like a tracepoint event. The probe's release is the event's: such a PMU does
    /// not implement [`Pmu::destroy`]. The probe functions are not exported: such a PMU is
    /// built into the kernel.
    const TRACE_EVENTS: bool = false;

    /// Checks the event's attributes and prepares it, or says why not.
    ///
    /// `ENOENT` means that the event is not meant for this PMU, and lets the perf core try the
    /// next one.
    ///
    /// # Context
    ///
    /// Process context, where it may sleep: `perf_event_open()`, the creation of a kernel
    /// counter, or a fork, for each event the child inherits. The perf core holds the read side
    /// of its PMU list's SRCU and, for a group's sibling, the mutex of the leader's context: it
    /// must not register or unregister a PMU, nor create an event.
    fn event_init(event: EventInit<'_, Self>) -> Result<Prepared<'_, Self>>;

    /// Releases what the PMU set up for the event, when the event is freed.
    ///
    /// # Context
    ///
    /// Process context, where it may sleep, once the event is off every CPU.
    fn destroy(_event: &Event) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Schedules the event on the current CPU.
    ///
    /// A PMU of the [`TaskContext::Software`] context must not fail: the perf core schedules
    /// software events as if they never did.
    ///
    /// # Context
    ///
    /// IRQs disabled, with the event's context locked, on the CPU the event goes on: from a
    /// context switch, or from an IPI (an enable, the multiplexing timer). Must not sleep.
    fn add(_event: &Event, _flags: u32) -> Result {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Removes the event from the current CPU.
    ///
    /// # Context
    ///
    /// As [`Pmu::add`].
    fn del(_event: &Event, _flags: u32) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Starts counting.
    ///
    /// # Context
    ///
    /// As [`Pmu::add`], and also from the tick (frequency adjustment, unthrottling). Must not
    /// sleep.
    fn start(_event: &Event, _flags: u32) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Stops counting.
    ///
    /// # Context
    ///
    /// As [`Pmu::start`], and also from the interrupt of a sampling event that is throttled.
    fn stop(_event: &Event, _flags: u32) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Updates the event's count.
    ///
    /// # Context
    ///
    /// Any context, an NMI included: the perf core reads the other events of a group from the
    /// interrupt of a sampling event, an NMI for hardware PMUs, and `perf_event_read_local()`
    /// reads an event from wherever a BPF program runs. It must not sleep, and must not take a
    /// lock (the interrupted code may hold it).
    fn read(_event: &Event) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }
}

/// The C callbacks of the PMU `T`, which call its [`Pmu`] methods.
pub(super) struct Adapter<T: Pmu>(PhantomData<T>);

/// The release of what an event holds (the C `perf_event::destroy`).
type Release = unsafe extern "C" fn(*mut bindings::perf_event);

impl<T: Pmu> Adapter<T> {
    /// # Safety
    ///
    /// `event` must be a valid event that the perf core is initialising for this PMU.
    pub(super) unsafe extern "C" fn event_init_callback(event: *mut bindings::perf_event) -> c_int {
        crate::build_assert!(
            !(T::TRACE_EVENTS && T::HAS_DESTROY),
            "a trace-event PMU's destroy is its probe's"
        );
        from_result(|| {
            // SAFETY: By the function requirements `event` is valid, and the perf core set its
            // PMU, a registered one, whose module is null or valid.
            let module = unsafe { (*(*event).pmu).module };
            // While its module initialises, the PMU takes no event: if the init fails, the
            // registration is dropped and the module freed, and no event may be left to use them.
            // The PMU is not there yet: `ENOENT`, which lets the perf core try other PMUs.
            // SAFETY: `module` is valid when it is not null.
            if !module.is_null() && unsafe { bindings::module_is_coming(module) } {
                return Err(ENOENT);
            }
            let held = Cell::new(Held::Nothing);
            // SAFETY: By the function requirements `event` is valid during the callback, and the
            // perf core is initialising it for this PMU, in process context, in the opener's task
            // or, for an inherited event, the forking task; `held` holds nothing yet.
            let init = unsafe { EventInit::new(event, &held) };
            // What the event holds is in `held`, whatever `event_init` did with its values.
            let result = T::event_init(init).map(drop);
            let release = Self::release_of(held.get());
            if let Err(e) = result {
                if let Some(release) = release {
                    // SAFETY: The event is valid and holds what `release` releases, once: the
                    // perf core releases nothing of an event whose initialisation failed.
                    unsafe { release(event) };
                    // The event may be offered to another PMU (`ENOENT`): it has no trace event.
                    // SAFETY: The event is valid and still being initialised.
                    #[cfg(CONFIG_EVENT_TRACING)]
                    unsafe {
                        (*event).tp_event = core::ptr::null_mut()
                    };
                }
                return Err(e);
            }
            let destroy = if T::TRACE_EVENTS {
                // Only `init_kprobe()` and `init_uprobe()` make the `Prepared` event of a
                // trace-event PMU: its event holds a probe, which `perf_trace_add()` uses.
                Some(release.ok_or(EINVAL)?)
            } else if T::HAS_DESTROY {
                Some(Self::destroy_callback as Release)
            } else {
                None
            };
            // SAFETY: The event is valid and owned by the perf core, which calls `destroy` once
            // when it frees the event, and never for an event whose initialisation failed.
            unsafe { (*event).destroy = destroy };
            Ok(0)
        })
    }

    /// The release of what an event holds: its probe's, which only a trace-event PMU's events
    /// hold (the others never refer to the probe functions, which modules cannot use).
    fn release_of(held: Held) -> Option<Release> {
        if !T::TRACE_EVENTS {
            return None;
        }
        match held {
            Held::Nothing => None,
            #[cfg(CONFIG_KPROBE_EVENTS)]
            Held::Kprobe => Some(super::probe::kprobe_destroy::<T> as Release),
            #[cfg(CONFIG_UPROBE_EVENTS)]
            Held::Uprobe => Some(super::probe::uprobe_destroy::<T> as Release),
        }
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU, being freed.
    unsafe extern "C" fn destroy_callback(event: *mut bindings::perf_event) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::destroy(unsafe { Event::from_raw(event) })
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn add_callback(event: *mut bindings::perf_event, flags: c_int) -> c_int {
        from_result(|| {
            // SAFETY: By the function requirements `event` is valid during the callback.
            T::add(unsafe { Event::from_raw(event) }, flags as u32)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn del_callback(event: *mut bindings::perf_event, flags: c_int) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::del(unsafe { Event::from_raw(event) }, flags as u32)
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn start_callback(event: *mut bindings::perf_event, flags: c_int) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::start(unsafe { Event::from_raw(event) }, flags as u32)
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn stop_callback(event: *mut bindings::perf_event, flags: c_int) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::stop(unsafe { Event::from_raw(event) }, flags as u32)
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU.
    unsafe extern "C" fn read_callback(event: *mut bindings::perf_event) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::read(unsafe { Event::from_raw(event) })
    }

    /// The C `struct pmu` of the PMU, with the defaults described at [`Pmu`] for the callbacks
    /// it leaves out. Its registration sets its module and its `format` attributes.
    pub(super) const PMU: bindings::pmu = bindings::pmu {
        task_ctx_nr: T::TASK_CONTEXT.as_raw(),
        // The events' destroy releases their BPF programs with their probes.
        capabilities: if T::TRACE_EVENTS {
            (bindings::PERF_PMU_CAP_TRACE_EVENTS | bindings::PERF_PMU_CAP_TRACE_BPF_DESTROY)
                as c_int
        } else {
            0
        } | if T::NO_INTERRUPT {
            bindings::PERF_PMU_CAP_NO_INTERRUPT as c_int
        } else {
            0
        },
        event_init: Some(Self::event_init_callback),
        add: Some(if T::HAS_ADD {
            Self::add_callback
        } else if T::TRACE_EVENTS {
            bindings::perf_trace_add
        } else {
            crate::build_error("a PMU whose events are not trace events must implement add and del")
        }),
        del: Some(if T::HAS_DEL {
            Self::del_callback
        } else if T::TRACE_EVENTS {
            bindings::perf_trace_del
        } else {
            crate::build_error("a PMU whose events are not trace events must implement add and del")
        }),
        start: Some(if T::HAS_START {
            Self::start_callback
        } else {
            bindings::perf_swevent_start
        }),
        stop: Some(if T::HAS_STOP {
            Self::stop_callback
        } else {
            bindings::perf_swevent_stop
        }),
        read: Some(if T::HAS_READ {
            Self::read_callback
        } else {
            bindings::perf_swevent_read
        }),
        // SAFETY: All-zero is a valid `struct pmu`: null pointers and no callbacks.
        ..unsafe { MaybeUninit::<bindings::pmu>::zeroed().assume_init() }
    };
}
