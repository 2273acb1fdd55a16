// Command-line helpers shared by the subcommands.
#ifndef TUMBLE_HOST_CLI_H_
#define TUMBLE_HOST_CLI_H_

#include <stdio.h>

#include <tumble/tumble.h>

// print "tumble: error: ..." on stderr; returns the exit status for bad input (2)
int tb_cliError(const char* fmt, ...);
// parse a whole string as a number / a whole number in [lo, hi]; 0, or 2 after an error message
int tb_parseNumber(const char* what, const char* s, double* out);
int tb_parseInt(const char* what, const char* s, long lo, long hi, long* out);
// NXxNY (or N for N x N), each a whole number in [1, 4096]; 0, or 2 after an error message
int tb_parseGrid(const char* what, const char* s, int* nx, int* ny);
// a length in m from a number with an optional unit suffix mm, cm or m; a bare number is in
// units of bare_unit m. 0, or 2 after an error message
int tb_parseLength(const char* what, const char* s, double bare_unit, double* out);
// lengths separated by 'x' (30x50x30mm: a length without a unit takes the next one's unit), each
// as tb_parseLength; returns the count (at most max), or -1 after an error message
int tb_parseLengths(const char* what, const char* s, double bare_unit, double* out, int max);
// --device auto|cpu|gpu, applied to tb_rollout at once (tb_setDevice); 0, or 2 after an error
// naming command (gpu without a usable device)
int tb_parseDevice(const char* command, const char* val);
// "gpu" or "cpu": where rollouts go now, for the commands' JSON summaries
const char* tb_deviceName(void);
// the options every batch command takes: --device, --threads and --out PATH (stored in *out);
// -1 when arg is none of them, else 0, or 2 after an error message
int tb_parseBatchOption(const char* command, const char* arg, const char* val, const char** out);
// an output file written to PATH.part and renamed to PATH when whole (cli_output.c)
typedef struct tbOutFile {
  char path[4096];
  char tmp[4102];
  FILE* f;  // the temporary file while open
} tbOutFile;
// open PATH.part before any computation: 0, or 2 after an error naming what (the option) and path
int tb_outOpen(tbOutFile* o, const char* what, const char* path);
// close and rename into place: 0, or 2 after an error (the temporary file removed)
int tb_outCommit(tbOutFile* o, const char* what);
// close and remove the temporary file; PATH is left as it was
void tb_outAbort(tbOutFile* o);
// TB_SCENE_* bits as words: "ok", or "diverged", "contact-overflow", "solver-inapplicable",
// "unconverged" joined by '+'
void tb_statusText(int status, char* buf, size_t n);
// the per-scene summary CSV: scene, every parameter's value, done (0: the run was interrupted
// before it), status (TB_SCENE_* bits) and its text, fail_step (-1: none), steps taken, contacts
// in the last step, solver iterations (sum, max), residual (last step, largest)
void tb_sceneSummaryHeader(FILE* f, const tbModel* m);
void tb_sceneSummaryRow(FILE* f, const tbModel* m, const tbData* d, int s, long scene, int done);
// `tumble solve ...` (cli_solve.c); returns the process exit status
int tb_solveMain(int argc, char** argv);
// `tumble estimate synth|pf|fit ...` (cli_estimate.c); returns the process exit status
int tb_estimateMain(int argc, char** argv);
// --threads T: a whole number in [1, 4096], applied to OpenMP at once; 0, or 2 after an error
int tb_parseThreads(const char* what, const char* s);
// `tumble grasp3d ...` (cli_grasp3d.c); returns the process exit status
int tb_grasp3dMain(int argc, char** argv);
// the tumble command line; returns the process exit status
int tb_cliMain(int argc, char** argv);

#endif  // TUMBLE_HOST_CLI_H_
