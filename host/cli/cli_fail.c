// The failures a run says on stderr beside the failed count of its JSON summary, each kind with
// its cure (parameters, a time step, a capacity, the solver and its options), so that a count
// is never the only trace of them.
#include <stdio.h>

#include <tumble/sweep.h>

#include "cli/cli.h"

// count units of one kind stopped, what they met and its status word, the first of them and the
// cure
static void tb_sayKind(const char* command, const char* unit, long count, long first,
                       const char* what, const char* word, const char* cure) {
  fprintf(stderr, "tumble: %s: %ld %s(s) %s (%s; %s %ld first): %s\n", command, count, unit, what,
          word, unit, first, cure);
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
  if (t->buried) {  // bad starting values, not a failing step
    tb_sayKind(command, unit, t->buried, t->buried_first, "start with a shape sunk into another",
               "starts-buried", "their parameters place bodies inside each other");
  }
  if (t->overflow) tb_sayOverflow(command, unit, t, maxcon);
  if (t->diverged) {  // a time step too long for the speeds or stiffness, a degenerate mass
    tb_sayKind(command, unit, t->diverged, t->diverged_first, "stopped at a state no longer finite",
               "diverged",
               "a shorter time step, or parameters that keep masses, inertias and stiffnesses in "
               "proportion, hold a scene that a step lost");
  }
  if (t->inapplicable) {  // a solver chosen for problems it cannot take
    tb_sayKind(command, unit, t->inapplicable, t->inapplicable_first,
               "stopped at a step whose problem the chosen solver does not take",
               "solver-inapplicable",
               "auto takes every step's problem (docs/solvers.md says which solver takes which)");
  }
  if (t->unbalanced) {  // quasistatic pushes beyond what the supports and friction hold
    tb_sayKind(command, unit, t->unbalanced, t->unbalanced_first,
               "reached a quasistatic step with no equilibrium", "no-equilibrium",
               "the loads exceed what the contacts can hold without motion, which the dynamic "
               "step (without the quasistatic option) follows");
  }
  if (t->unconverged) tb_sayUnconverged(command, unit, t, cure);
}
