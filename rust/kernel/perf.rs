// SPDX-License-Identifier: GPL-2.0

//! Performance events.
//!
//! C header: [`include/linux/perf_event.h`](srctree/include/linux/perf_event.h)
//!
//! A PMU (a source of perf events) written in Rust implements [`Pmu`] and is registered with the
//! perf core by a [`Registration`]. Its callbacks borrow the events they act on as [`Event`]s.
//!
//! # Examples
//!
//! A PMU whose events count nothing, with one format attribute:
//!
//! ```
//! use kernel::c_str;
//! use kernel::perf::{Event, EventInit, FormatAttribute, Pmu, Prepared, Registration};
//! use kernel::prelude::*;
//!
//! struct Idle;
//!
//! #[vtable]
//! impl Pmu for Idle {
//!     const NAME: &'static CStr = c_str!("rust_doctest_idle");
//!     const FORMAT: &'static [FormatAttribute] =
//!         &[FormatAttribute::new(c_str!("level"), c_str!("config:0-3"))];
//!
//!     fn event_init(event: EventInit<'_, Self>) -> Result<Prepared<'_, Self>> {
//!         if event.attr_type() != event.pmu_type() {
//!             return Err(ENOENT);
//!         }
//!         Ok(event.accept())
//!     }
//!
//!     fn add(_event: &Event, _flags: u32) -> Result {
//!         Ok(())
//!     }
//!
//!     fn del(_event: &Event, _flags: u32) {}
//! }
//!
//! // Built-in code registers its PMUs for the life of the kernel; a module passes its
//! // `THIS_MODULE` to `Registration::new` instead.
//! let pmu_type = Registration::<Idle>::new_builtin()?;
//! // Dynamic PMUs get a type number past the fixed `PERF_TYPE_*` ones.
//! assert!(pmu_type >= kernel::bindings::perf_type_id_PERF_TYPE_MAX);
//! # Ok::<(), Error>(())
//! ```

use crate::{
    bindings,
    error::{code::*, from_result, to_result, Error, Result, VTABLE_DEFAULT_ERROR},
    ffi::{c_char, c_int},
    prelude::*,
    str::CStr,
    sync::{LockClassKey, Mutex, SpinLock},
    types::Opaque,
};
use core::{marker::PhantomData, mem::ManuallyDrop, ops::Deref, ptr::NonNull};

/// Returns whether the current task may monitor the system with perf: the C `perfmon_capable()`.
fn perfmon_capable() -> bool {
    // SAFETY: `perfmon_capable` only reads the credentials of the current task, which exist in
    // any context that can call into Rust.
    unsafe { bindings::perfmon_capable() }
}

/// Returns whether the current task has `CAP_SYS_ADMIN` in the initial user namespace.
fn sys_admin_capable() -> bool {
    // The capability numbers are small constants of the user-space ABI.
    const CAP_SYS_ADMIN: i32 = bindings::CAP_SYS_ADMIN as i32;
    // SAFETY: `capable` only reads the credentials of the current task, which exist in any
    // context that can call into Rust.
    unsafe { bindings::capable(CAP_SYS_ADMIN) }
}

/// The context in which the perf core schedules the events of a PMU.
///
/// Corresponds to the C `enum perf_event_task_context`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TaskContext {
    /// The PMU has no per-task events: they can only be opened per CPU.
    Invalid,
    /// Events are scheduled with the hardware PMUs'.
    Hardware,
    /// Events are scheduled with the software PMUs' (they never fail to be added).
    Software,
}

impl TaskContext {
    const fn as_raw(self) -> c_int {
        match self {
            Self::Invalid => bindings::perf_event_task_context_perf_invalid_context,
            Self::Hardware => bindings::perf_event_task_context_perf_hw_context,
            Self::Software => bindings::perf_event_task_context_perf_sw_context,
        }
    }
}

/// A perf event, borrowed in a callback of its PMU.
///
/// Wraps the kernel's [`struct perf_event`].
///
/// # Invariants
///
/// `self.0` is a valid `struct perf_event` that the perf core keeps alive and does not free
/// while the reference is in use.
///
/// [`struct perf_event`]: srctree/include/linux/perf_event.h
#[repr(transparent)]
pub struct Event(Opaque<bindings::perf_event>);

impl Event {
    /// Creates a reference to an [`Event`] from a valid pointer.
    ///
    /// # Safety
    ///
    /// `ptr` must point at a valid `struct perf_event` that stays alive, and whose `pmu` and the
    /// attributes read here (type, config, config1, config2, sample type) do not change, for the
    /// lifetime `'a`; this holds in the callbacks of its PMU.
    pub unsafe fn from_raw<'a>(ptr: *mut bindings::perf_event) -> &'a Self {
        // CAST: `Self` is a `repr(transparent)` wrapper around `bindings::perf_event`.
        let ptr = ptr.cast::<Self>();
        // SAFETY: By the function requirements the pointer is valid for `'a`.
        unsafe { &*ptr }
    }

    /// Returns a raw pointer to the C `struct perf_event`.
    pub fn as_raw(&self) -> *mut bindings::perf_event {
        self.0.get()
    }

    /// Returns the type the event was opened with (`perf_event_attr::type`).
    pub fn attr_type(&self) -> u32 {
        // SAFETY: By the type invariants the event is valid; `type` does not change. Each
        // accessor reads one field: the perf core writes others (the sample period) while the
        // event lives.
        unsafe { (*self.as_raw()).attr.type_ }
    }

    /// Returns the type number of the PMU the event is being given to.
    ///
    /// In [`Pmu::event_init`], an event whose [`Event::attr_type`] differs is not meant for the
    /// PMU, which then returns `ENOENT`.
    pub fn pmu_type(&self) -> u32 {
        // SAFETY: By the type invariants the event is valid; the perf core sets `pmu` before it
        // calls any callback of that PMU.
        let type_ = unsafe { (*(*self.as_raw()).pmu).type_ };
        // A registered PMU's type is not negative.
        type_ as u32
    }

    /// Returns `perf_event_attr::config`.
    pub fn config(&self) -> u64 {
        // SAFETY: By the type invariants the event is valid; `config` does not change.
        unsafe { (*self.as_raw()).attr.config }
    }

    /// Returns `perf_event_attr::config1` (for probe PMUs, a user pointer to a name).
    pub fn config1(&self) -> u64 {
        // SAFETY: By the type invariants the event is valid; `config1` does not change, and every
        // member of its union is a `u64`.
        unsafe { (*self.as_raw()).attr.__bindgen_anon_3.config1 }
    }

    /// Returns `perf_event_attr::config2` (for probe PMUs, an address or an offset).
    pub fn config2(&self) -> u64 {
        // SAFETY: By the type invariants the event is valid; `config2` does not change, and every
        // member of its union is a `u64`.
        unsafe { (*self.as_raw()).attr.__bindgen_anon_4.config2 }
    }

    /// Adds `delta` to the event's count, which `read()` of the event returns.
    ///
    /// A PMU whose events count what happens while they are scheduled calls it from the
    /// callbacks of an event on the CPU where the event is active (`add`, `del`, `start`,
    /// `stop`, `read`): the count is a CPU-local `local64_t`, safe against interrupts and NMIs
    /// on that CPU, not against another CPU's updates.
    pub fn add_count(&self, delta: u64) {
        // SAFETY: By the type invariants the event is valid; its count is a `local64_t`, updated
        // atomically.
        unsafe { bindings::perf_event_add_count(self.as_raw(), delta) }
    }

    /// Returns whether the event samples the branch stack (the C `has_branch_stack()`).
    pub fn has_branch_stack(&self) -> bool {
        const BRANCH_STACK: u64 =
            bindings::perf_event_sample_format_PERF_SAMPLE_BRANCH_STACK as u64;
        // SAFETY: By the type invariants the event is valid; `sample_type` does not change.
        unsafe { (*self.as_raw()).attr.sample_type & BRANCH_STACK != 0 }
    }
}

/// The release of what an event holds (the C `perf_event::destroy`).
type Release = unsafe extern "C" fn(*mut bindings::perf_event);

/// What a prepared event holds, besides what the PMU's [`Pmu::destroy`] releases.
#[derive(Clone, Copy)]
enum Held {
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
/// them. What they prepare is released unless `event_init` returns it.
pub struct EventInit<'a, T: Pmu> {
    event: &'a Event,
    _p: PhantomData<T>,
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
        perfmon_capable()
    }

    /// Returns whether the opener has `CAP_SYS_ADMIN` in the initial user namespace.
    pub fn sys_admin_capable(&self) -> bool {
        sys_admin_capable()
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
        Prepared {
            event: self.event,
            held: Held::Nothing,
            _p: PhantomData,
        }
    }

    /// Attaches a new local kprobe to the event.
    ///
    /// The probe is on `func` (plus `perf_event_attr::probe_offset`), or at the address
    /// `perf_event_attr::kprobe_addr` when `func` is `None`; on the function's return when
    /// `retprobe` is set. The probe is released with the event, or with the returned
    /// [`Prepared`] if `event_init` does not return it.
    #[cfg(CONFIG_KPROBE_EVENTS)]
    pub fn init_kprobe(self, func: Option<&CStr>, retprobe: bool) -> Result<Prepared<'a, T>> {
        crate::build_assert!(T::TRACE_EVENTS, "only trace-event PMUs attach probes");
        let func = func.map_or(core::ptr::null(), CStr::as_char_ptr);
        // SAFETY: The event is valid and being initialised by its PMU, in process context;
        // `func` is null or a valid string that the callee copies.
        to_result(unsafe {
            bindings::perf_local_kprobe_init(self.event.as_raw(), func, retprobe)
        })?;
        Ok(Prepared {
            event: self.event,
            held: Held::Kprobe,
            _p: PhantomData,
        })
    }

    /// Attaches a new local uprobe to the event.
    ///
    /// The probe is in the file at `path`, at the file offset `perf_event_attr::probe_offset`;
    /// on the function's return when `retprobe` is set. A non-zero `ref_ctr_offset` is the file
    /// offset of the probe's reference counter (its USDT semaphore). The probe is released with
    /// the event, or with the returned [`Prepared`] if `event_init` does not return it.
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
        Ok(Prepared {
            event: self.event,
            held: Held::Uprobe,
            _p: PhantomData,
        })
    }
}

/// An event that [`Pmu::event_init`] prepared, and returns to the perf core.
///
/// If it is dropped instead (`event_init` fails after preparing the event), what was prepared
/// is released at once, since the perf core releases nothing of an event whose initialisation
/// failed.
///
/// # Invariants
///
/// The event holds what `held` says, which has not been released.
pub struct Prepared<'a, T: Pmu> {
    event: &'a Event,
    held: Held,
    _p: PhantomData<T>,
}

impl<T: Pmu> Prepared<'_, T> {
    /// Hands the event over to the perf core: returns what the event holds, which its destroy
    /// must release.
    fn into_held(self) -> Held {
        let held = self.held;
        core::mem::forget(self);
        held
    }
}

impl<T: Pmu> Drop for Prepared<'_, T> {
    fn drop(&mut self) {
        if !T::TRACE_EVENTS {
            return;
        }
        match self.held {
            Held::Nothing => {}
            // SAFETY: By the type invariants the event holds a kprobe, which is released once,
            // while the event is still being initialised, in process context.
            #[cfg(CONFIG_KPROBE_EVENTS)]
            Held::Kprobe => unsafe { bindings::perf_kprobe_destroy(self.event.as_raw()) },
            // SAFETY: As for a kprobe.
            #[cfg(CONFIG_UPROBE_EVENTS)]
            Held::Uprobe => unsafe { bindings::perf_uprobe_destroy(self.event.as_raw()) },
        }
    }
}

/// The flag of [`Pmu::add`] that starts the event at once (the C `PERF_EF_START`).
pub const EF_START: u32 = bindings::PERF_EF_START;

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

/// What an event held that can be released in batches, by a [`Reaper`].
///
/// Releasing some things waits for every CPU to pass a quiescent state (a grace period): the
/// release of a probe waits until no handler of the probe can still run. A batch of them waits
/// once.
pub trait Reap: Send + Sized + 'static {
    /// Releases what the items of `batch` hold, with one wait for all of them.
    ///
    /// Called in process context, where it may sleep, by the reaper's work item or by a task
    /// that defers an item to a full reaper; several calls may run at once. The items are
    /// dropped after it returns. An item must not hold the last reference to its own reaper:
    /// the reaper's drop waits for its work item.
    fn reap(batch: &mut [Self]);
}

/// Creates a [`Reaper`] of `capacity` items whose locks and work item have lock classes of their
/// own, named `name`, as [`new_mutex!`](crate::new_mutex) does for a mutex.
#[macro_export]
macro_rules! new_reaper {
    ($capacity:expr, $name:literal $(,)?) => {{
        // Statics of this expansion site: the reapers it creates share a name and lock classes
        // whichever crate's code runs it, as lockdep needs.
        static NAME: &$crate::str::CStr = $crate::c_str!($name);
        $crate::perf::Reaper::new(
            $capacity,
            NAME,
            [
                $crate::static_lock_class!(),
                $crate::static_lock_class!(),
                $crate::static_lock_class!(),
            ],
        )
    }};
}

/// A queue of things to release in batches, from a work item.
///
/// [`Reaper::defer`] queues an item and returns at once; the reaper's work item takes every
/// item queued so far and releases them with one call of [`Reap::reap`]. While it waits, more
/// items queue up, to be released together next. At most `capacity` items wait in the queue
/// (the reaper allocates room for them when it is created, and never allocates again):
/// [`Reaper::defer`] releases an item at once, in the caller, when the queue is full. So at
/// most twice `capacity` items, the queued ones and the batch being released, are ever pending.
///
/// Dropping the reaper waits for its work item and releases what is still queued. As for
/// everything a module creates, a reaper of a module must be dropped before the module is
/// unloaded, which a reaper that is leaked (`core::mem::forget`) is not.
///
/// # Examples
///
/// ```
/// use core::sync::atomic::{AtomicUsize, Ordering};
/// use kernel::new_reaper;
/// use kernel::perf::Reap;
/// use kernel::prelude::*;
///
/// static RELEASED: AtomicUsize = AtomicUsize::new(0);
/// static BATCHES: AtomicUsize = AtomicUsize::new(0);
///
/// struct Held(usize);
///
/// impl Reap for Held {
///     fn reap(batch: &mut [Self]) {
///         // One wait for all of them, as `synchronize_rcu()` would be.
///         BATCHES.fetch_add(1, Ordering::Relaxed);
///         RELEASED.fetch_add(batch.iter().map(|held| held.0).sum(), Ordering::Relaxed);
///     }
/// }
///
/// let reaper = KBox::pin_init(new_reaper!(8, "doctest_reaper"), GFP_KERNEL)?;
/// for _ in 0..20 {
///     reaper.defer(Held(1));
/// }
/// reaper.flush();
/// assert_eq!(RELEASED.load(Ordering::Relaxed), 20);
/// assert!(BATCHES.load(Ordering::Relaxed) >= 1);
///
/// // Dropping the reaper releases what is still queued.
/// reaper.defer(Held(3));
/// drop(reaper);
/// assert_eq!(RELEASED.load(Ordering::Relaxed), 23);
/// # Ok::<(), Error>(())
/// ```
///
/// # Invariants
///
/// `pending` and `batch` each have room for `capacity` items; `work` is initialised with
/// [`Reaper::work_fn`] as its function.
#[pin_data(PinnedDrop)]
pub struct Reaper<R: Reap> {
    #[pin]
    pending: SpinLock<KVec<R>>,
    #[pin]
    batch: Mutex<KVec<R>>,
    capacity: usize,
    #[pin]
    work: Opaque<bindings::work_struct>,
}

// SAFETY: The items are `Send`; the work item is only used through the workqueue functions,
// which may be called from any thread.
unsafe impl<R: Reap> Send for Reaper<R> {}

// SAFETY: `&Reaper` only queues items under a lock, releases them under another, and queues the
// work item, which the workqueue functions allow from any thread.
unsafe impl<R: Reap> Sync for Reaper<R> {}

impl<R: Reap> Reaper<R> {
    /// Creates a reaper that queues at most `capacity` items, whose locks and work item have
    /// the lock classes `keys` (of its queue, its batch and its work item), named `name`.
    ///
    /// [`new_reaper!`] gives each reaper it creates classes of its own.
    ///
    /// [`new_reaper!`]: crate::new_reaper
    pub fn new(
        capacity: usize,
        name: &'static CStr,
        keys: [&'static LockClassKey; 3],
    ) -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            pending <- SpinLock::new(KVec::with_capacity(capacity, GFP_KERNEL)?, name, keys[0]),
            batch <- Mutex::new(KVec::with_capacity(capacity, GFP_KERNEL)?, name, keys[1]),
            capacity,
            // INVARIANT: The work item's function is `work_fn`.
            work <- Opaque::ffi_init(|slot| {
                // SAFETY: `slot` is a `work_struct` that is not in use; `work_fn` is a work
                // function for the `work` of a `Reaper<R>`, and the name and key are static.
                unsafe {
                    bindings::init_work_with_key(
                        slot,
                        Some(Self::work_fn),
                        false,
                        name.as_char_ptr(),
                        keys[2].as_ptr(),
                    )
                }
            }),
        })
    }

    /// Queues `item` to be released with the next batch, or releases it at once, in the caller,
    /// when the queue is full.
    ///
    /// It may sleep: it is called in process context.
    pub fn defer(&self, item: R) {
        let mut pending = self.pending.lock();
        let len = pending.len();
        if len >= self.capacity {
            drop(pending);
            let mut item = item;
            R::reap(core::slice::from_mut(&mut item));
            return;
        }
        pending.spare_capacity_mut()[0].write(item);
        // SAFETY: By the type invariants there was room for the item, which is initialised.
        unsafe { pending.set_len(len + 1) };
        drop(pending);
        // SAFETY: By the type invariants the work item is initialised; the reaper is pinned, and
        // its drop cancels the work item before it is freed.
        unsafe {
            bindings::queue_work_on(
                bindings::wq_misc_consts_WORK_CPU_UNBOUND as _,
                bindings::system_unbound_wq,
                self.work.get(),
            )
        };
    }

    /// Releases every item queued so far, in the caller, and waits until those that the work
    /// item took are released.
    ///
    /// It sleeps: it is called in process context.
    pub fn flush(&self) {
        // The work item releases its batch holding `batch`.
        let mut batch = self.batch.lock();
        core::mem::swap(&mut *self.pending.lock(), &mut *batch);
        Self::release(&mut batch);
    }

    /// Releases the items of `batch` and empties it, keeping its room.
    fn release(batch: &mut KVec<R>) {
        if batch.is_empty() {
            return;
        }
        R::reap(batch);
        let len = batch.len();
        let items = core::ptr::slice_from_raw_parts_mut(batch.as_mut_ptr(), len);
        // SAFETY: The first `len` items are initialised; the length is reset before they are
        // dropped, so that none is dropped twice.
        unsafe {
            batch.set_len(0);
            core::ptr::drop_in_place(items);
        }
    }

    /// # Safety
    ///
    /// `work` must be the `work` of a `Reaper<R>` that is not freed until the function returns.
    unsafe extern "C" fn work_fn(work: *mut bindings::work_struct) {
        // SAFETY: By the function requirements `work` is the `work` field of a live reaper;
        // `Opaque<work_struct>` has the layout of a `work_struct`.
        let this = unsafe { &*crate::container_of!(work, Self, work) };
        this.flush();
    }
}

#[pinned_drop]
impl<R: Reap> PinnedDrop for Reaper<R> {
    fn drop(self: Pin<&mut Self>) {
        // SAFETY: By the type invariants the work item is initialised. Once this returns it is
        // neither queued nor running, and cannot be queued again: nothing else borrows the reaper.
        unsafe { bindings::cancel_work_sync(self.work.get()) };
        self.flush();
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
struct ProbeReapers {
    #[pin]
    kprobes: Reaper<DisarmedKprobe>,
    #[pin]
    uprobes: Reaper<DisarmedUprobe>,
}

impl ProbeReapers {
    fn new() -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            kprobes <- crate::new_reaper!(PROBE_REAPER_CAPACITY, "perf_kprobe_reaper"),
            uprobes <- crate::new_reaper!(PROBE_REAPER_CAPACITY, "perf_uprobe_reaper"),
        })
    }
}

/// An attribute of a PMU's sysfs `format` directory: which bits of the event attributes hold
/// one of its parameters, as in `retprobe` = `config:0`.
///
/// This is the Rust counterpart of the C `PMU_FORMAT_ATTR()`.
pub struct FormatAttribute {
    name: &'static CStr,
    value: &'static CStr,
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
pub trait Pmu: 'static {
    /// The name of the PMU in sysfs (`/sys/bus/event_source/devices/NAME`).
    const NAME: &'static CStr;

    /// The context in which the perf core schedules the PMU's events.
    const TASK_CONTEXT: TaskContext = TaskContext::Software;

    /// The attributes of the PMU's sysfs `format` directory.
    const FORMAT: &'static [FormatAttribute] = &[];

    /// Whether the PMU's events only count: they never interrupt to take a sample, and
    /// `perf_event_open()` refuses sampling events (a non-zero `sample_period`) with
    /// `EOPNOTSUPP`, after [`Pmu::event_init`] has seen them (the C
    /// `PERF_PMU_CAP_NO_INTERRUPT`). In-kernel counters are not checked.
    const COUNTING_ONLY: bool = false;

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
    fn event_init(event: EventInit<'_, Self>) -> Result<Prepared<'_, Self>>
    where
        Self: Sized;

    /// Releases what the PMU set up for the event, when the event is freed.
    fn destroy(_event: &Event) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Schedules the event on the current CPU.
    ///
    /// A PMU of the [`TaskContext::Software`] context must not fail: the perf core schedules
    /// software events as if they never did.
    fn add(_event: &Event, _flags: u32) -> Result {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Removes the event from the current CPU.
    fn del(_event: &Event, _flags: u32) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Starts counting.
    fn start(_event: &Event, _flags: u32) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Stops counting.
    fn stop(_event: &Event, _flags: u32) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }

    /// Updates the event's count.
    fn read(_event: &Event) {
        crate::build_error(VTABLE_DEFAULT_ERROR)
    }
}

struct Adapter<T: Pmu>(PhantomData<T>);

impl<T: Pmu> Adapter<T> {
    /// # Safety
    ///
    /// `event` must be a valid event that the perf core is initialising for this PMU.
    unsafe extern "C" fn event_init_callback(event: *mut bindings::perf_event) -> c_int {
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
            // SAFETY: `module` is null or a valid module.
            if unsafe { bindings::perf_pmu_module_is_coming(module) } {
                return Err(ENOENT);
            }
            let init = EventInit {
                // SAFETY: By the function requirements `event` is valid during the callback.
                event: unsafe { Event::from_raw(event) },
                _p: PhantomData,
            };
            let held = T::event_init(init)?.into_held();
            // Only a trace-event PMU's events hold probes: the others never refer to the probe
            // functions, which modules cannot use.
            let destroy = if !T::TRACE_EVENTS {
                if T::HAS_DESTROY {
                    Some(Self::destroy_callback as Release)
                } else {
                    None
                }
            } else {
                match held {
                    Held::Nothing => None,
                    #[cfg(CONFIG_KPROBE_EVENTS)]
                    Held::Kprobe => Some(Self::kprobe_destroy_callback as Release),
                    #[cfg(CONFIG_UPROBE_EVENTS)]
                    Held::Uprobe => Some(Self::uprobe_destroy_callback as Release),
                }
            };
            // SAFETY: The event is valid and owned by the perf core, which calls `destroy` once
            // when it frees the event, and never for an event whose initialisation failed.
            unsafe { (*event).destroy = destroy };
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// `event` must be a valid event of this PMU, being freed.
    unsafe extern "C" fn destroy_callback(event: *mut bindings::perf_event) {
        // SAFETY: By the function requirements `event` is valid during the callback.
        T::destroy(unsafe { Event::from_raw(event) })
    }

    /// Queues the probe that the destroy of `event` disarmed for release with the next batch.
    ///
    /// # Safety
    ///
    /// `event` must be a valid event of this PMU; `probe` must be what the disarm of its probe,
    /// of the kind `P`, returned.
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
    ///
    /// # Safety
    ///
    /// `event` must be a valid event of this PMU, holding a kprobe, being freed.
    #[cfg(CONFIG_KPROBE_EVENTS)]
    unsafe extern "C" fn kprobe_destroy_callback(event: *mut bindings::perf_event) {
        // SAFETY: By the function requirements the event holds a local kprobe, released once.
        let probe = unsafe { bindings::perf_local_kprobe_disarm(event) };
        // SAFETY: `probe` is what the disarm of the event's kprobe returned.
        unsafe { Self::defer_disarmed::<DisarmedKprobe>(event, probe) };
    }

    /// The destroy of an event that holds a uprobe: disarms it at once and defers its release.
    ///
    /// # Safety
    ///
    /// `event` must be a valid event of this PMU, holding a uprobe, being freed.
    #[cfg(CONFIG_UPROBE_EVENTS)]
    unsafe extern "C" fn uprobe_destroy_callback(event: *mut bindings::perf_event) {
        // SAFETY: By the function requirements the event holds a local uprobe, released once.
        let probe = unsafe { bindings::perf_local_uprobe_disarm(event) };
        // SAFETY: `probe` is what the disarm of the event's uprobe returned.
        unsafe { Self::defer_disarmed::<DisarmedUprobe>(event, probe) };
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

    /// The callbacks of the C `struct pmu`, with the defaults described at [`Pmu`].
    const CALLBACKS: Callbacks = Callbacks {
        add: if T::HAS_ADD {
            Self::add_callback
        } else if T::TRACE_EVENTS {
            bindings::perf_trace_add
        } else {
            crate::build_error("a PMU whose events are not trace events must implement add and del")
        },
        del: if T::HAS_DEL {
            Self::del_callback
        } else if T::TRACE_EVENTS {
            bindings::perf_trace_del
        } else {
            crate::build_error("a PMU whose events are not trace events must implement add and del")
        },
        start: if T::HAS_START {
            Self::start_callback
        } else {
            bindings::perf_swevent_start
        },
        stop: if T::HAS_STOP {
            Self::stop_callback
        } else {
            bindings::perf_swevent_stop
        },
        read: if T::HAS_READ {
            Self::read_callback
        } else {
            bindings::perf_swevent_read
        },
    };
}

struct Callbacks {
    add: unsafe extern "C" fn(*mut bindings::perf_event, c_int) -> c_int,
    del: unsafe extern "C" fn(*mut bindings::perf_event, c_int),
    start: unsafe extern "C" fn(*mut bindings::perf_event, c_int),
    stop: unsafe extern "C" fn(*mut bindings::perf_event, c_int),
    read: unsafe extern "C" fn(*mut bindings::perf_event),
}

/// A `struct device_attribute` of a `format` directory, with the text it shows.
#[repr(C)]
struct FormatDeviceAttribute {
    attr: bindings::device_attribute,
    value: &'static CStr,
}

/// # Safety
///
/// `attr` must be the `attr` field of a [`FormatDeviceAttribute`], and `buf` a sysfs page.
unsafe extern "C" fn format_show(
    _dev: *mut bindings::device,
    attr: *mut bindings::device_attribute,
    buf: *mut c_char,
) -> isize {
    // CAST: `attr` is the first field of a `repr(C)` `FormatDeviceAttribute`.
    let format = attr.cast::<FormatDeviceAttribute>();
    // SAFETY: By the function requirements `format` is valid and `buf` is a sysfs page; the
    // format string takes one string argument.
    let len = unsafe {
        bindings::sysfs_emit(
            buf,
            crate::c_str!("%s\n").as_char_ptr(),
            (*format).value.as_char_ptr(),
        )
    };
    len as isize
}

/// The C structures of a PMU: `struct pmu` and its sysfs `format` attributes.
///
/// # Invariants
///
/// Once set up by [`PmuData::register`], `pmu` points at `groups`, which points at `group`,
/// which points at the null-terminated array `attrs`, which points at the elements of `format`.
#[pin_data]
struct PmuData<T: Pmu> {
    #[pin]
    pmu: Opaque<bindings::pmu>,
    #[pin]
    group: Opaque<bindings::attribute_group>,
    #[pin]
    groups: Opaque<[*const bindings::attribute_group; 2]>,
    format: KVec<FormatDeviceAttribute>,
    attrs: KVec<*mut bindings::attribute>,
    /// For a PMU whose events are trace events, the release of their probes.
    probes: Option<Pin<KBox<ProbeReapers>>>,
    _p: PhantomData<T>,
}

impl<T: Pmu> PmuData<T> {
    fn new() -> impl PinInit<Self, Error> {
        try_pin_init!(Self {
            pmu: Opaque::uninit(),
            group: Opaque::uninit(),
            groups: Opaque::uninit(),
            format: Self::format_attributes()?,
            attrs: KVec::with_capacity(T::FORMAT.len() + 1, GFP_KERNEL)?,
            probes: if T::TRACE_EVENTS {
                Some(KBox::pin_init(ProbeReapers::new(), GFP_KERNEL)?)
            } else {
                None
            },
            _p: PhantomData,
        })
    }

    /// Returns the data of the PMU `pmu`.
    ///
    /// # Safety
    ///
    /// `pmu` must be the `pmu` of a registered `PmuData<T>`, which stays registered for `'a`.
    unsafe fn from_pmu<'a>(pmu: *mut bindings::pmu) -> &'a Self {
        // SAFETY: By the function requirements `pmu` is the `pmu` field of a live `PmuData<T>`;
        // `Opaque<pmu>` has the layout of a `pmu`. Once registered, the data is only shared.
        unsafe { &*crate::container_of!(pmu, Self, pmu) }
    }

    fn format_attributes() -> Result<KVec<FormatDeviceAttribute>> {
        let mut format = KVec::with_capacity(T::FORMAT.len(), GFP_KERNEL)?;
        for f in T::FORMAT {
            // SAFETY: All-zero is a valid `struct device_attribute` (no callbacks).
            let mut attr: bindings::device_attribute = unsafe { core::mem::zeroed() };
            attr.attr.name = f.name.as_char_ptr();
            attr.attr.mode = 0o444;
            attr.show = Some(format_show);
            // SAFETY: `attr.attr` is a valid attribute that is not registered yet.
            unsafe { bindings::sysfs_attr_init(&mut attr.attr) };
            format.push(
                FormatDeviceAttribute {
                    attr,
                    value: f.value,
                },
                GFP_KERNEL,
            )?;
        }
        Ok(format)
    }

    /// Sets up the C structures and registers the PMU.
    ///
    /// # Safety
    ///
    /// `self` must be pinned, and called once; `module` must be null or a valid module.
    unsafe fn register(&mut self, module: *mut bindings::module) -> Result {
        // Capacity was reserved for every attribute and the terminating null: no reallocation.
        for f in self.format.iter_mut() {
            self.attrs.push(&mut f.attr.attr, GFP_KERNEL)?;
        }
        self.attrs.push(core::ptr::null_mut(), GFP_KERNEL)?;

        let group = self.group.get();
        let groups = self.groups.get();
        let pmu = self.pmu.get();
        let callbacks = &Adapter::<T>::CALLBACKS;
        // SAFETY: The three C structures are owned by `self`, pinned, and not yet visible to the
        // perf core; all-zero is a valid `struct attribute_group` and `struct pmu`.
        unsafe {
            group.write(core::mem::zeroed());
            (*group).name = crate::c_str!("format").as_char_ptr();
            (*group).attrs = self.attrs.as_mut_ptr();
            groups.write([group.cast_const(), core::ptr::null()]);
            pmu.write(core::mem::zeroed());
            (*pmu).module = module;
            (*pmu).task_ctx_nr = T::TASK_CONTEXT.as_raw();
            if T::TRACE_EVENTS {
                // The events' destroy releases their BPF programs with their probes.
                (*pmu).capabilities |= (bindings::PERF_PMU_CAP_TRACE_EVENTS
                    | bindings::PERF_PMU_CAP_TRACE_BPF_DESTROY)
                    as c_int;
            }
            if T::COUNTING_ONLY {
                (*pmu).capabilities |= bindings::PERF_PMU_CAP_NO_INTERRUPT as c_int;
            }
            if !T::FORMAT.is_empty() {
                (*pmu).attr_groups = groups.cast();
            }
            (*pmu).event_init = Some(Adapter::<T>::event_init_callback);
            (*pmu).add = Some(callbacks.add);
            (*pmu).del = Some(callbacks.del);
            (*pmu).start = Some(callbacks.start);
            (*pmu).stop = Some(callbacks.stop);
            (*pmu).read = Some(callbacks.read);
        }
        // SAFETY: `pmu` is fully set up and pinned; `T::NAME` is static; -1 asks for a dynamic
        // type number.
        to_result(unsafe { bindings::perf_pmu_register(pmu, T::NAME.as_char_ptr(), -1) })
    }
}

/// The registration of a PMU with the perf core.
///
/// Registers the PMU `T` under [`Pmu::NAME`], with a dynamic type number, for as long as the
/// code of its callbacks is loaded: for the life of the kernel ([`Registration::new_builtin`]),
/// or of the module that passes its `THIS_MODULE` to [`Registration::new`].
///
/// The perf core of this kernel neither waits for nor detaches the events of a PMU that is
/// unregistered: they keep using its C structures. So a PMU is unregistered only when none of
/// its events can exist. Each event holds a reference to the PMU's module, so when the module
/// is being unloaded (its exit drops the registration) no event is left and none can be
/// created. While the module initialises, the PMU refuses every event (`ENOENT`, as a PMU that
/// is not registered yet), so a module whose init fails may drop the registration too. Dropped
/// at any other time, the registration leaves the PMU registered and its C structures
/// allocated, and keeps its module loaded for good; if the module is being unloaded at that
/// very moment, which no event can then hold, it unregisters the PMU.
///
/// As for everything a module registers, its code must not outlive it: a registration that a
/// module leaks (`core::mem::forget`) leaves the PMU registered after the module is unloaded.
///
/// # Invariants
///
/// `data` is registered with the perf core, with `module` as its module.
pub struct Registration<T: Pmu> {
    data: ManuallyDrop<Pin<KBox<PmuData<T>>>>,
    module: *mut bindings::module,
}

// SAFETY: The registration only gives out the PMU's type number; the perf core may call the
// PMU's callbacks from any context, and unregistering is allowed from any task.
unsafe impl<T: Pmu> Send for Registration<T> {}

// SAFETY: `&Registration` only reads the PMU's type number.
unsafe impl<T: Pmu> Sync for Registration<T> {}

impl<T: Pmu> Registration<T> {
    /// Registers the PMU of the module `module`, which the perf core keeps loaded while the PMU
    /// has events. A module passes its `THIS_MODULE`.
    pub fn new(module: &'static ThisModule) -> Result<Self> {
        Self::register(module.as_ptr())
    }

    /// Registers a PMU of built-in code, for the life of the kernel; returns its type number.
    ///
    /// Fails with `EINVAL` when the PMU's code is in a module, which must use
    /// [`Registration::new`].
    pub fn new_builtin() -> Result<u32> {
        let callback = Adapter::<T>::event_init_callback as *const () as usize;
        // SAFETY: Any address may be looked up.
        if !unsafe { bindings::perf_pmu_builtin_code(callback) } {
            return Err(EINVAL);
        }
        let registration = Self::register(core::ptr::null_mut())?;
        let pmu_type = registration.pmu_type();
        // Never unregistered: the perf core's list of PMUs keeps the C structures referenced.
        core::mem::forget(registration);
        Ok(pmu_type)
    }

    fn register(module: *mut bindings::module) -> Result<Self> {
        let mut data = KBox::pin_init(PmuData::new(), GFP_KERNEL)?;
        // SAFETY: `register` does not move the data, which stays pinned; it is called once, with
        // a module that is null or valid (`ThisModule` is valid for `'static`).
        unsafe { data.as_mut().get_unchecked_mut().register(module)? };
        // INVARIANT: The PMU is registered.
        Ok(Self {
            data: ManuallyDrop::new(data),
            module,
        })
    }

    /// Returns the PMU's type number, which user space passes as `perf_event_attr::type`.
    pub fn pmu_type(&self) -> u32 {
        // SAFETY: By the type invariants `pmu` is registered, and its type does not change.
        let type_ = unsafe { (*self.data.pmu.get()).type_ };
        // A registered PMU's type is not negative.
        type_ as u32
    }
}

impl<T: Pmu> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: By the type invariants `module` is null or a valid module.
        if !unsafe { bindings::perf_pmu_module_may_unregister(self.module) } {
            if self.module.is_null() {
                return;
            }
            // SAFETY: `module` is a valid module. Pinning fails only when it has just started
            // going away, with no event holding it: then the PMU is unregistered below.
            if unsafe { bindings::perf_pmu_module_pin(self.module) } {
                pr_warn!(
                    "perf: PMU {} dropped while its module is live: left registered\n",
                    T::NAME
                );
                return;
            }
        }
        // SAFETY: By the type invariants the PMU is registered; its module is going away (no
        // event holds it, and none can take it) or initialising (the PMU took no event), so
        // none of its events exist; `perf_pmu_unregister` waits for event inits in progress.
        unsafe { bindings::perf_pmu_unregister(self.data.pmu.get()) };
        // SAFETY: The perf core no longer uses the C structures; `data` is not used again.
        unsafe { ManuallyDrop::drop(&mut self.data) };
    }
}
