/* SPDX-License-Identifier: MIT */
/* glicko: Glicko-2 ratings (Glickman, "Example of the Glicko-2 system", 2012) with lichess's parameters. No I/O. */
#ifndef WIZWAR_GLICKO_H
#define WIZWAR_GLICKO_H

#include <stdbool.h>

/*
 * A rating on the Glicko scale (1500 for an unknown player), its deviation (the
 * uncertainty: a 95% interval is about rating +- 2 deviations) and its volatility (how
 * erratic the player's results are). Doubles on purpose: every implementation this one is
 * checked against computes in IEEE doubles, and a rating shown rounded to a whole number
 * hides the last bits; nothing in the rules depends on them.
 */
struct glicko {
	double rating;
	double deviation;
	double volatility;
};

/*
 * The system's constants. glicko_lichess() are lichess's: a new player is 1500 +- 500 with
 * volatility 0.09, tau 0.75, 0.21436 rating periods a day, deviations kept in 45..500,
 * ratings in 400..4000, volatility at most 0.1, provisional while the deviation is 110 or
 * more. glicko_paper() are Glickman's example's (tau 0.5, no clamps), for the tests.
 */
struct glicko_params {
	struct glicko start;
	double tau;
	double periods_per_day;
	double rating_min, rating_max;
	double deviation_min, deviation_max;
	double volatility_max;
	double provisional; /* deviation at and above which a rating is provisional */
};

struct glicko_params glicko_lichess(void);
struct glicko_params glicko_paper(void);

/* One result against one opponent: score 1 a win, 0.5 a draw, 0 a loss. */
struct glicko_result {
	struct glicko opponent;
	double score;
};

/*
 * A rating period: `player`'s rating after results[0..n) played against opponents rated as
 * given, with `periods` rating periods elapsed (Glickman's step 6 adds periods x volatility^2
 * to the variance; 1 for a whole period, 0 for lichess's rating of one game at a time, or
 * days since the player's last rated duel x periods_per_day). n == 0 only widens the
 * deviation. Returns false (and leaves *out alone) only if the volatility iteration does not
 * converge in 1,000 steps, which the clamps make impossible for finite inputs.
 */
bool glicko_update(const struct glicko_params *p, struct glicko player, const struct glicko_result *results,
	int n, double periods, struct glicko *out);

/* A rated duel between a and b: both new ratings, a's score given (1, 0.5, 0). */
bool glicko_duel(const struct glicko_params *p, struct glicko a, struct glicko b, double score_a, double periods,
	struct glicko *a_out, struct glicko *b_out);

/* The deviation after `periods` with no game (what a rating shows after a pause). */
double glicko_idle_deviation(const struct glicko_params *p, struct glicko g, double periods);

/* The chance that a beats b, from both ratings and deviations (for pairing and for showing). */
double glicko_expect(struct glicko a, struct glicko b);

static inline bool
glicko_provisional(const struct glicko_params *p, struct glicko g)
{
	return g.deviation >= p->provisional;
}

#endif
