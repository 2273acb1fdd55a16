// Command-line helpers shared by the subcommands.
#ifndef TUMBLE_HOST_CLI_H_
#define TUMBLE_HOST_CLI_H_

#include <stdio.h>

#include <tumble/plate.h>
#include <tumble/scenes.h>
#include <tumble/sweep.h>
#include <tumble/tumble.h>

#include "jobs/outfile.h"
#include "plot/replay.h"

// print "tumble: error: ..." on stderr; returns the exit status for bad input (2)
int tb_cliError(const char* fmt, ...);
// an error for word, which none of the n choices is: fmt's message, "; did you mean X?" for a
// close choice (tb_closest), then in parentheses the choices ("expected a, b or c") where they
// are few enough to read, and see (what lists them, e.g. "see tumble simulate --list"; or NULL).
// Returns 2
int tb_choiceError(const char* word, const char* const* choices, int n, const char* see,
                   const char* fmt, ...);
// a --param NAME of none of model m's parameters (nor of the structural options of scene si,
// where not NULL): "WHAT has no parameter 'NAME'" with the closest names, or them all where they
// are few, and see (e.g. "see tumble simulate --list"). Returns 2
int tb_unknownParam(const tbModel* m, const tbSceneInfo* si, const char* name, const char* see,
                    const char* what);
// a scene name that no built-in scene has, after what (the option that gave it, or NULL): an
// error with the closest scene name. Returns 2
int tb_unknownScene(const char* what, const char* name);
// "unknown option 'arg'", with the closest of the n options of the command ("simulate",
// "estimate pf") where one is close, and its --help. Returns 2
int tb_optionError(const char* command, const char* arg, const char* const* options, int n);
// the same with the options of the command's usage (the --NAME words usage writes)
int tb_unknownOption(const char* command, const char* arg, void (*usage)(FILE*));
// the option arg of a parser and its value: 0, or 2 after an error message (arg is no option,
// or val is NULL: the command line ended)
int tb_optionValue(const char* arg, const char* val);
// v with fmt (e.g. "%.6g") into buf, or null where v is not finite: JSON has no NaN or inf
void tb_jsonNumber(char* buf, size_t len, const char* fmt, double v);
// s into buf as the inside of a JSON string (quotes, backslashes and control characters
// escaped, UTF-8 passed as it is), cut at a whole escape to fit len; returns buf. A model's file
// name, or a name from it, printed in a JSON summary
char* tb_jsonEscape(char* buf, size_t len, const char* s);
// room for a path (4200 bytes at most) escaped: 6 bytes a byte at worst (\u00XX)
typedef struct tbJsonPath {
  char s[6 * 4200 + 1];
} tbJsonPath;
// path escaped into j (tb_jsonEscape): a file name the user gave, printed in a JSON line
const char* tb_jsonPath(tbJsonPath* j, const char* path);
// the failures of a run whose cause and cure stderr names beside the JSON's failed count
// (cli_fail.c): starts-buried and contact-overflow, how many and the first, and the unconverged
// with their worst residual; unit names what the command runs ("scene", "trial", "start",
// "particle"), maxcon the capacity a scene (0: not known here), cure what the command's options
// do for an unconverged solve
void tb_sayFailures(const char* command, const char* unit, const tbFailTally* t, int maxcon,
                    const char* cure);
// parse a whole string as a number / a whole number in [lo, hi]; 0, or 2 after an error message
int tb_parseNumber(const char* what, const char* s, double* out);
int tb_parseInt(const char* what, const char* s, long lo, long hi, long* out);
// a study's --dt VAL (what, val as typed), the time step dt of model m's scene: at least the
// shortest it takes (tb_minStep of m's own values); 0, or 2 after an error naming the option, the
// value and the bound
int tb_cliCheckStep(const char* what, const char* val, const tbModel* m, double dt);
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
// --solver NAME (tumble solve --list) into *solver; 0, or 2 after an error naming it
int tb_parseSolver(const char* val, int* solver);
// --precision fp64|fp32, applied to tb_rollout at once (tb_setPrecision; fp32 says once on
// stderr that it raises solver tolerances to TB_FP32_MIN_TOL); 0, or 2 after an error
int tb_parsePrecision(const char* val);
// the --device and --precision given (the defaults they set, tb_getDevice and tb_getPrecision)
// into a job's definition, which was made before the options were read
void tb_cliRunOf(int* device, int* precision);
// "fp64" or "fp32", for the commands' JSON summaries
const char* tb_precisionName(void);
// "gpu" or "cpu": where rollouts go now, for the commands' JSON summaries
const char* tb_deviceName(void);
// the same of rank 0 (of this process without a share): the device a journal's study names
const char* tb_studyDevice(void);
// the options every batch command takes: --device, --precision, --threads and --out PATH
// (stored in *out);
// -1 when arg is none of them, else 0, or 2 after an error message
int tb_parseBatchOption(const char* command, const char* arg, const char* val, const char** out);
// a CSV output named path by option what: a line on stderr where the name does not end .csv (nor,
// with h5, .h5 or .hdf5, which the command writes as HDF5), so that x.txt or x.json is not
// mistaken for another format
void tb_sayCsvOut(const char* what, const char* path, int h5);
// --yes (grasp, grasp3d, plate field, simulate, estimate pf): start a study over the size cap
// below; 1 when arg is it
int tb_parseYes(const char* arg);
// a study of n `unit` (scenes, trials, starts, particles) of `steps` steps each: from 1e9
// scene-steps (hours or more on a CPU) it is refused, naming its size, unless --yes was given.
// 0, or 2 after the message
int tb_cliCostCheck(const char* command, const char* unit, double n, double steps);
// the output files of outfile.h with the command line's errors: 0, or 2 after "tumble: error:
// WHAT PATH: ..." (what: the option that named it)
int tb_cliOutOpen(tbOutFile* o, const char* what, const char* path);
int tb_cliOutCommit(tbOutFile* o, const char* what);
// path can be an output written later by a writer of its own (absent, or a regular file): 0, or
// 2 as above
int tb_cliOutCheck(const char* what, const char* path);
// a plot that could not be put into o (a tb_plot* function's -1): 2 after an error that says
// why (the write's reason, or that cairo failed)
int tb_cliPlotFailed(const tbOutFile* o);
// a run's n files committed together (tb_outCommitAll): 0, or 2 as above
int tb_cliOutCommitAll(const char* what, tbOutFile* const* o, int n);
// the records of nscene scenes over nstep steps, every `every` (tb_recordCount): 0, or 2 after an
// error (not enough memory); tb_freeRecord frees what was allocated
int tb_newRecord(tbRecord* rec, const tbModel* m, int nscene, int nstep, int every);
void tb_freeRecord(tbRecord* rec);
// the trajectory CSV (scene,step,t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz) of the scenes
// [0, ndone) of a recorded rollout; a failed scene's rows end at its last good state
void tb_writeTrajectories(FILE* f, const tbModel* m, const tbRecord* rec, const tbData* d,
                          int ndone);
// simulate's --out FILE.h5 (cli_h5.c): datasets pos, quat, vel (scene x record x moving body x
// 3|4|6, NaN past a scene's last good state), time (scene x record), step, body; param (scene x
// parameter), param_name, and the summary's per-scene columns; attributes command_line,
// version, scene, partial. Written into o, which the caller commits: 0, or 2 after an error
int tb_writeSimulateH5(tbOutFile* o, const char* scene, const tbModel* m, const tbRecord* rec,
                       const tbData* d, int ndone);
// a replay's options: --replay-speed S (simulated seconds per second of video) and --view
// top|side; -1 when arg is neither, else 0, or 2 after an error message
int tb_parseReplayOption(const char* arg, const char* val, tbReplayOpt* o);
// the replay of one scene (cli_replay.c): STEM.csv, every body's state at every step, and
// STEM.mp4; both opened before the run
typedef struct tbCliReplay {
  tbOutFile csv, video;
  tbRecord rec;
} tbCliReplay;
// run the one-scene batch d (parameters set and reset) nstep steps, recording every step; o's
// view, when < 0, becomes the model's (tb_replayViewOf): 0, or 2 after an error message
int tb_replayRun(tbCliReplay* r, const char* stem, const tbModel* m, tbData* d, int nstep,
                 tbReplayOpt* o);
// then write both files, the video under title and caption (which may name the outcome): 0,
// or 2 after an error message; tb_replayCommit puts them in place with also (a file of the
// caller's, or NULL)
int tb_replayWrite(tbCliReplay* r, const tbModel* m, const tbData* d, tbReplayOpt* o,
                   const char* title, const char* caption);
int tb_replayCommit(tbCliReplay* r, tbOutFile* also);
// release what is left (the files not committed are removed)
void tb_replayEnd(tbCliReplay* r);
// --replay CELL,TRIAL of the grasp studies: whole numbers >= 0; 0, or 2 after an error message
int tb_parseCellTrial(const char* what, const char* val, int* cell, int* trial);
// the journal of a long study (cli_journal.c): PREFIX.journal holds the output rows of every
// finished piece of scenes, so that --resume goes on after a kill where it stopped
typedef struct tbJournal {
  FILE* f;
  char path[4200];
  char header[64];  // the study's line
  long blocks;      // replayed and appended
} tbJournal;
// a journal's name of the run a command line asks for: every argument but --out, --resume,
// --threads and --yes (which change no result), with the version, commit and device
void tb_commandKey(const char* command, int argc, char** argv, char* key, size_t n);
// FNV-1a of n bytes: the journal's checksum, and a short name of a study's inputs
uint64_t tb_journalHash(const void* bytes, size_t n);
// one row of a replayed block (without its newline)
typedef void (*tbJournalRow)(void* ctx, const char* row, size_t len);
// open the journal at path for the study `study` (its options, seed and version, as text). With
// resume, the rows of its whole blocks go to replay and *next is the first scene not done (0
// without a journal); a journal of another study is an error. Else a fresh journal. 0, or 2
int tb_journalOpen(tbJournal* j, const char* path, const char* study, int resume, long* next,
                   tbJournalRow replay, void* ctx);
// The journal of a deterministic computation's calls (an optimizer's objective, a fit's
// batches): each call's results in a block, after a hash of its inputs. A resumed run makes the
// same calls in the same order; the journal answers them until it runs out, then the run goes
// on computing and journaling.
typedef struct tbCallMemo {
  tbJournal j;
  char** call;  // the journal's calls: the inputs' hash, then the results
  size_t* len;
  long ncall, cap, next;
  int oom;
  int failed;  // a call could not be journaled (said on stderr)
} tbCallMemo;
// open PATH for the study `study` (tb_journalOpen); 0, or 2 after an error message
int tb_memoOpen(tbCallMemo* mo, const char* path, const char* study, int resume);
// the next call, inputs x: 1 with its results in out from the journal, 0 when the journal holds
// no more calls (compute them, then tb_memoKeep), -1 after tb_setError (the journal's call had
// other inputs or another size: not this computation)
int tb_memoLookup(tbCallMemo* mo, const void* x, size_t xbytes, void* out, size_t outbytes);
// journal the results of the call just computed: 0, or 2 after an error message (mo->failed)
int tb_memoKeep(tbCallMemo* mo, const void* x, size_t xbytes, const void* out, size_t outbytes);
// close (tb_journalClose) and free
void tb_memoClose(tbCallMemo* mo, int done);
// the same with the blocks whole (a block of bytes, not rows: a binary state)
typedef void (*tbJournalBlock)(void* ctx, long first, long end, const char* bytes, size_t len);
int tb_journalOpenBlocks(tbJournal* j, const char* path, const char* study, int resume, long* next,
                         tbJournalBlock replay, void* ctx);
// the rows of scenes [first, end), written and fsync'd: 0, or 2 after an error message
int tb_journalAppend(tbJournal* j, long first, long end, const char* rows, size_t len);
// close; done (the outputs are written) or a journal without blocks: it is removed
void tb_journalClose(tbJournal* j, int done);
// --resume's one line on stderr: done of total units (total < 0: not known ahead) taken from the
// journal at path, or that there was none to take, so that a run starting over is never silent
void tb_journalSayResumed(const char* command, const char* unit, long done, long total,
                          const char* path);
// the journal made anew with one block, bytes of [0, end), written whole beside it, fsync'd and
// renamed over it (a kill leaves the old journal or the new): a checkpoint that replaces the
// last. 0, or 2 after an error message
int tb_journalReplace(tbJournal* j, long end, const char* bytes, size_t len);
// the view that shows a model's motion: from the top for a planar (2.5D) model, else the side
int tb_replayViewOf(const tbModel* m);
// "name value unit, ..." of scene 0's parameters, cut with "..." to fit n bytes
void tb_paramCaption(const tbModel* m, const tbData* d, char* buf, size_t n);
// the other commands' --out FILE.h5 (cli_h5.c): tables (CSV text, a header line then rows, as
// the CSV outputs have them) as groups `name` of one dataset per column (float64 where every
// value is a number, else strings); attributes command_line, version, command, partial. Written
// into o, which the caller commits: 0, or 2 after an error
int tb_writeTablesH5(tbOutFile* o, const char* command, int partial, int ntable,
                     const char* const* name, char* const* csv);
// whether path names an HDF5 file (.h5 or .hdf5)
int tb_isH5(const char* path);
// the command line as typed (for the outputs' provenance)
const char* tb_cliCommandLine(void);
// `tumble solve ...` (cli_solve.c); returns the process exit status
int tb_solveMain(int argc, char** argv);
// `tumble estimate synth|pf|fit ...` (cli_estimate.c); returns the process exit status
int tb_estimateMain(int argc, char** argv);
// --threads T: a whole number in [1, 4096], applied to OpenMP at once; 0, or 2 after an error
int tb_parseThreads(const char* what, const char* s);
// `tumble grasp3d ...` (cli_grasp3d.c); returns the process exit status
int tb_grasp3dMain(int argc, char** argv);
// cli_plate_output.c: `tumble plate field`'s outputs, `plate optimize`'s too
// PREFIX.csv (or PREFIX.h5 for --out PREFIX.h5) and PREFIX.png, opened before a run
// (tb_fieldOutOpen), written (tb_fieldOutWrite) and committed by the caller with the run's
// other files
typedef struct tbFieldOut {
  tbOutFile table;  // the CSV, or the HDF5 file
  tbOutFile png;
  int h5;
} tbFieldOut;
// open --out PREFIX's files before a run, write them: 0, or 2 after an error; abort what was
// not committed
int tb_fieldOutOpen(tbFieldOut* out, const char* prefix);
int tb_fieldOutWrite(tbFieldOut* out, const tbPlateMotion* mo, int modified, const tbFieldOpt* o,
                     const tbFieldResult* r);
void tb_fieldOutAbort(tbFieldOut* out);
// the table rows of starts [s0, s1): start, mean position and velocity, contact fractions, status
void tb_fieldRows(FILE* f, const tbFieldResult* r, int s0, int s1);

// the tumble command line; returns the process exit status
int tb_cliMain(int argc, char** argv);
// `tumble grasp ...` (cli_grasp.c), `tumble plate ...` (cli_plate.c), `tumble plate optimize ...`
// (cli_plate_optimize.c); return the process exit status
int tb_graspMain(int argc, char** argv);
int tb_plateMain(int argc, char** argv);
int tb_plateOptimizeMain(int argc, char** argv);
// the usage of `tumble plate` and its subcommands (cli_plate.c)
void tb_plateUsage(FILE* f);
// `tumble simulate ...` (cli_simulate.c) and `tumble model ...` (cli_model.c); return the
// process exit status
int tb_simulateMain(int argc, char** argv);
int tb_modelMain(int argc, char** argv);
// 1 when a command's arguments ask for its usage (--help or -h, anywhere among them)
int tb_helpAsked(int argc, char** argv);
// keep the command line for tb_cliCommandLine; set the device the commands default to (auto, as
// said once on stderr)
void tb_keepCommandLine(int argc, char** argv);
void tb_defaultDevice(void);

// many processes on one study (cli_mpi.c): under an MPI launcher, join the others and split
// every rollout over them (tb_setShare); 1 when started so, 0 for one process
int tb_mpiStart(int* argc, char*** argv);
// leave, with the command's exit status (a failure ends every process of the job)
int tb_mpiEnd(int rc);

#endif  // TUMBLE_HOST_CLI_H_
