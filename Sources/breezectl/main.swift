import BreezeCLI
import Glibc

exit(BreezeCTL.main(Array(CommandLine.arguments.dropFirst())))
