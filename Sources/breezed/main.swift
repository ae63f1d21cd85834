import Foundation
import BreezeDaemon

exit(await DaemonMain.run(CommandLine.arguments))
