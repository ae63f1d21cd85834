import BreezeDaemon
@_spi(Executors) import BreezeSystem
import Glibc

// Before the first task but this one: every job meant for the global executor runs on this pool, and every timer
// waits on a thread of its own (TaskPool+GlobalExecutor.swift and TimerThread.swift say why).
TaskPool.shared.installAsGlobalExecutor()

// gpsd's reader runs the work of each fix it hands on itself, rather than waking a pool thread for it.
exit(
    await DaemonMain.run(
        CommandLine.arguments, threadLoan: TaskPool.shared.threadLoan, clock: TimerThreadClock(TimerThread())))
