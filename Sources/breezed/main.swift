@_spi(ExperimentalCustomExecutors) import _Concurrency
import BreezeDaemon
@_spi(Executors) import BreezeSystem
import Glibc

// Before the first task: every task but this one runs on these (DaemonExecutors.swift says why).
_createExecutors(factory: DaemonExecutors.self)

// gpsd's reader runs the work of each fix it hands on itself, rather than waking a pool thread for it.
exit(await DaemonMain.run(CommandLine.arguments, threadLoan: TaskPool.shared.threadLoan))
