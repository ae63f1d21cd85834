// The Swift runtime's hook for its global executor, as libswift_Concurrency exports it (swift/Runtime/Concurrency.h:
// `swift_task_enqueueGlobal_hook`). Set once, before the first task, it hands every job meant for the global
// executor to a function of ours. Present and unchanged from Swift 5.5 to 6.3; declared here because the runtime's
// own header is not installed with the toolchain. See Sources/BreezeSystem/TaskPool+GlobalExecutor.swift for why
// breezed uses it.
#ifndef CCONCURRENCYHOOKS_SHIM_H
#define CCONCURRENCYHOOKS_SHIM_H

/// A job of the Swift runtime (`swift::Job *`); Swift sees it as an `UnownedJob` of the same bits.
typedef struct CConcurrencyHooks_Job *CConcurrencyHooks_JobRef;

/// The runtime's own enqueue, which the hook may call instead.
typedef __attribute__((swiftcall)) void (*CConcurrencyHooks_EnqueueOriginal)(CConcurrencyHooks_JobRef _Nonnull job);

/// A function called for every job enqueued on the global executor.
typedef __attribute__((swiftcall)) void (*CConcurrencyHooks_EnqueueHook)(
    CConcurrencyHooks_JobRef _Nonnull job, CConcurrencyHooks_EnqueueOriginal _Nonnull original);

extern CConcurrencyHooks_EnqueueHook _Nullable swift_task_enqueueGlobal_hook;

/// Sets the hook (a global of the runtime's, which Swift 6 would not let us assign directly).
static inline void CConcurrencyHooks_setEnqueueGlobalHook(CConcurrencyHooks_EnqueueHook _Nullable hook) {
    swift_task_enqueueGlobal_hook = hook;
}

#endif
