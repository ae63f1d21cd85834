import BreezeDaemon
import Glibc

exit(await DaemonMain.run(CommandLine.arguments))
