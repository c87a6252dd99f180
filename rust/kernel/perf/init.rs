// SPDX-License-Identifier: GPL-2.0

//! What a PMU's `event_init` works with: the [`EventInit`] event it is given, the
//! [`Prepared`] event it returns, and the [`UserCString`] strings it copies from the opener
//! (with their limits, [`KPROBE_FUNC_MAX`] and [`UPROBE_PATH_MAX`]). It calls what sleeps or
//! reads the opener's credentials and memory, which only `event_init` may do.

use super::{Event, Pmu};
use crate::{bindings, error::code::*, ffi::c_char, prelude::*, str::CStr};
use core::{cell::Cell, marker::PhantomData, ops::Deref, ptr::NonNull};

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
/// These, and what sleeps or reads the opener's credentials and memory (capability checks, user
/// strings), exist only while the event is initialised, in process context, in the opener's
/// task: the PMU's other callbacks, which may run in atomic context or in an NMI, cannot reach
/// them. What they attach to the event is released if `event_init` fails, whatever it did with
/// the [`Prepared`] value.
///
/// The opener is the task that calls `perf_event_open()`, except for an event inherited at
/// `fork()` (`attr.inherit`): the perf core initialises the child's copy in the forking task, the
/// monitored task, which need not be the task, nor the user, that opened the parent event.
/// There the capability checks see the forking task's credentials, and
/// [`EventInit::user_string`] reads the forking task's memory at the addresses of the parent
/// event's attributes, as the C PMUs' `event_init` does.
///
/// # Invariants
///
/// `event` is being initialised by the perf core for the PMU `T`, in process context, in the
/// task that opens it or, for an inherited event, in the forking task. `held` says what the
/// event holds, and is read by the PMU's adapter once `event_init` returns.
pub struct EventInit<'a, T: Pmu> {
    pub(super) event: &'a Event,
    pub(super) held: &'a Cell<Held>,
    pub(super) _p: PhantomData<T>,
}

impl<'a, T: Pmu> Deref for EventInit<'a, T> {
    type Target = Event;

    fn deref(&self) -> &Event {
        self.event
    }
}

impl<'a, T: Pmu> EventInit<'a, T> {
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

    /// Copies the NUL-terminated string at the opener's address `addr`, of at most `max_len`
    /// bytes with its NUL (see [`UserCString`]).
    pub fn user_string(&self, addr: u64, max_len: usize) -> Result<UserCString> {
        UserCString::copy_from_user(addr, max_len)
    }

    /// Accepts the event as it is, for a PMU whose events are not trace events.
    pub fn accept(self) -> Prepared<'a, T> {
        crate::build_assert!(
            !T::TRACE_EVENTS,
            "the events of a trace-event PMU must hold a probe"
        );
        Prepared::new()
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

/// The longest function name a kprobe takes, with its NUL (`KSYM_NAME_LEN`).
pub const KPROBE_FUNC_MAX: usize = bindings::KSYM_NAME_LEN as usize;

/// The longest path a uprobe takes, with its NUL (`PATH_MAX`).
pub const UPROBE_PATH_MAX: usize = bindings::PATH_MAX as usize;

/// A NUL-terminated string copied from user space, by [`EventInit::user_string`].
///
/// This is what the C `strndup_user()` returns, with the error perf reports for a string that is
/// too long.
///
/// # Invariants
///
/// `ptr` points at a NUL-terminated string allocated with `kmalloc`, owned by `self`.
pub struct UserCString {
    ptr: NonNull<c_char>,
}

impl UserCString {
    /// Copies the string at the user address `addr`, of at most `max_len` bytes with its NUL.
    ///
    /// Fails with `EFAULT` when the string cannot be read, `E2BIG` when it has no NUL within
    /// `max_len` bytes, and `ENOMEM`. An empty string is copied (see [`CStr::is_empty`]).
    /// It sleeps: [`EventInit::user_string`] is how a PMU calls it.
    fn copy_from_user(addr: u64, max_len: usize) -> Result<Self> {
        let max_len = max_len.try_into().map_err(|_| EINVAL)?;
        let uptr = addr as usize as *const c_char;
        // SAFETY: `strndup_user` checks the user pointer and reads at most `max_len` bytes.
        let ptr = unsafe { bindings::strndup_user(uptr, max_len) };
        match crate::error::from_err_ptr(ptr) {
            // `strndup_user` says EINVAL when the string is too long; perf says E2BIG.
            Err(e) if e == EINVAL => Err(E2BIG),
            Err(e) => Err(e),
            // INVARIANT: `strndup_user` returned a NUL-terminated copy from `kmalloc`.
            Ok(ptr) => NonNull::new(ptr).map(|ptr| Self { ptr }).ok_or(ENOMEM),
        }
    }
}

impl Deref for UserCString {
    type Target = CStr;

    fn deref(&self) -> &CStr {
        // SAFETY: By the type invariants `ptr` is a NUL-terminated string that lives as long as
        // `self`.
        unsafe { CStr::from_char_ptr(self.ptr.as_ptr()) }
    }
}

impl Drop for UserCString {
    fn drop(&mut self) {
        // SAFETY: By the type invariants `ptr` was allocated with `kmalloc` and is owned by us.
        unsafe { bindings::kfree(self.ptr.as_ptr().cast()) };
    }
}
