@_spi(ExperimentalCustomExecutors) import _Concurrency
import BreezeDaemon
import Glibc

// Before the first task: every task but this one runs on these (TaskPool.swift says why).
_createExecutors(factory: DaemonExecutors.self)

exit(await DaemonMain.run(CommandLine.arguments))
