// Command-line helpers shared by the subcommands.
#ifndef TUMBLE_HOST_CLI_H_
#define TUMBLE_HOST_CLI_H_

// print "tumble: error: ..." on stderr; returns the exit status for bad input (2)
int tb_cliError(const char* fmt, ...);
// parse a whole string as a number / a whole number in [lo, hi]; 0, or 2 after an error message
int tb_parseNumber(const char* what, const char* s, double* out);
int tb_parseInt(const char* what, const char* s, long lo, long hi, long* out);
// `tumble solve ...` (cli_solve.c); returns the process exit status
int tb_solveMain(int argc, char** argv);
// --threads T: a whole number in [1, 4096], applied to OpenMP at once; 0, or 2 after an error
int tb_parseThreads(const char* what, const char* s);
// the tumble command line; returns the process exit status
int tb_cliMain(int argc, char** argv);

#endif  // TUMBLE_HOST_CLI_H_
