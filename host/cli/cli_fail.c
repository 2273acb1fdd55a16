// The failures a run says on stderr beside the failed count of its JSON summary, each kind with
// its cure (parameters, a time step, a capacity, the solver and its options), so that a count
// is never the only trace of them.
#include <stdio.h>

#include <tumble/sweep.h>

#include "cli/cli.h"

// bad starting values, not a failing step
static void tb_sayBuried(const char* command, const char* unit, const tbFailTally* t) {
  fprintf(stderr,
          "tumble: %s: %ld %s(s) start with a shape sunk into another (starts-buried; %s %ld "
          "first): their parameters place bodies inside each other\n",
          command, t->buried, unit, unit, t->buried_first);
}

// a step's contacts are every shape pair within the step's margin, which grows with the shapes'
// speed times the time step: fast or sunk shapes can outnumber a capacity set below the pairs'
// bound (the sphere pile's 9 a sphere); the scene stops rather than drop one
static void tb_sayOverflow(const char* command, const char* unit, const tbFailTally* t,
                           int maxcon) {
  char cap[48] = "";
  if (maxcon > 0) snprintf(cap, sizeof(cap), " of %d a scene", maxcon);
  fprintf(stderr,
          "tumble: %s: %ld %s(s) stopped at a step with more contacts than the model's "
          "capacity%s (contact-overflow; %s %ld first): shapes moving fast or sunk into one "
          "another count as touching over a wider margin; a smaller time step narrows it, and "
          "MJCF <size nconmax=\"N\"/> (tbOption.maxcon in the C API) raises the capacity\n",
          command, t->overflow, unit, cap, unit, t->overflow_first);
}

// a state no longer finite: the step could not hold the scene (a time step too long for its
// speeds or stiffness, a mass matrix that lost its positive definiteness)
static void tb_sayDiverged(const char* command, const char* unit, const tbFailTally* t) {
  fprintf(stderr,
          "tumble: %s: %ld %s(s) diverged (a state no longer finite; %s %ld first): a shorter "
          "time step, or parameters that keep masses, inertias and stiffnesses in proportion, "
          "hold a scene that a step lost\n",
          command, t->diverged, unit, unit, t->diverged_first);
}

// a solver chosen for problems it cannot take (an LCP solver on the exact cone's contacts)
static void tb_sayInapplicable(const char* command, const char* unit, const tbFailTally* t) {
  fprintf(stderr,
          "tumble: %s: %ld %s(s) stopped at a step whose problem the chosen solver does not take "
          "(solver-inapplicable; %s %ld first): auto takes every step's problem "
          "(docs/solvers.md says which solver takes which)\n",
          command, t->inapplicable, unit, unit, t->inapplicable_first);
}

// the quasistatic step's pushes beyond what the supports and friction can hold
static void tb_sayUnbalanced(const char* command, const char* unit, const tbFailTally* t) {
  fprintf(stderr,
          "tumble: %s: %ld %s(s) reached a quasistatic step with no equilibrium (no-equilibrium; "
          "%s %ld first): the loads exceed what the contacts can hold without motion, which the "
          "dynamic step (without the quasistatic option) follows\n",
          command, t->unbalanced, unit, unit, t->unbalanced_first);
}

// not a failure: the results stand, but with forces off by up to the residual, which the JSON's
// max_residual alone leaves for the user to compare with the tolerance
static void tb_sayUnconverged(const char* command, const char* unit, const tbFailTally* t,
                              const char* cure) {
  char worst[48] = "";
  if (t->resid_max > 0.0) snprintf(worst, sizeof(worst), "worst residual %.3g, ", t->resid_max);
  fprintf(stderr,
          "tumble: %s: %ld %s(s) had a step whose solver stopped above its tolerance "
          "(unconverged; %s%s %ld first): their forces are that far from the solution; %s\n",
          command, t->unconverged, unit, worst, unit, t->unconverged_first, cure);
}

void tb_sayFailures(const char* command, const char* unit, const tbFailTally* t, int maxcon,
                    const char* cure) {
  if (t->buried) tb_sayBuried(command, unit, t);
  if (t->overflow) tb_sayOverflow(command, unit, t, maxcon);
  if (t->diverged) tb_sayDiverged(command, unit, t);
  if (t->inapplicable) tb_sayInapplicable(command, unit, t);
  if (t->unbalanced) tb_sayUnbalanced(command, unit, t);
  if (t->unconverged) tb_sayUnconverged(command, unit, t, cure);
}
