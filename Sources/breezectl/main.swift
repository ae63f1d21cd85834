import BreezeCLI
import Foundation

exit(BreezeCTL.main(Array(CommandLine.arguments.dropFirst())))
