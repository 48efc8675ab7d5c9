/* SPDX-License-Identifier: MIT */
/* glicko: Glicko-2 rating periods, step by step as Glickman's 2012 paper numbers them. No I/O. */
#include <math.h>

#include "glicko.h"

/* The Glicko-2 scale is the Glicko scale divided by 400/ln(10). */
#define SCALE 173.7178
#define PI 3.14159265358979323846
#define EPSILON 0.000001 /* step 5's convergence tolerance, the paper's */
#define ITERATIONS 1000

struct glicko_params
glicko_lichess(void)
{
	return (struct glicko_params){
		.start = { 1500.0, 500.0, 0.09 },
		.tau = 0.75,
		.periods_per_day = 0.21436,
		.rating_min = 400.0, .rating_max = 4000.0,
		.deviation_min = 45.0, .deviation_max = 500.0,
		.volatility_max = 0.1,
		.provisional = 110.0,
	};
}

struct glicko_params
glicko_paper(void)
{
	return (struct glicko_params){
		.start = { 1500.0, 350.0, 0.06 },
		.tau = 0.5,
		.periods_per_day = 1.0,
		.rating_min = -INFINITY, .rating_max = INFINITY,
		.deviation_min = 0.0, .deviation_max = INFINITY,
		.volatility_max = INFINITY,
		.provisional = 110.0,
	};
}

static double
clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Step 3's g(phi): how much an opponent's uncertainty discounts the result against it. */
static double
g_of(double phi)
{
	return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (PI * PI));
}

/* Step 3's E: the expected score against an opponent at mu_j with deviation phi_j. */
static double
e_of(double mu, double mu_j, double phi_j)
{
	return 1.0 / (1.0 + exp(-g_of(phi_j) * (mu - mu_j)));
}

/* Step 5.1's f(x), whose root is ln(sigma'^2). */
static double
f_of(double x, double delta, double phi, double v, double a, double tau)
{
	double ex = exp(x), d = phi * phi + v + ex;
	return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau);
}

/* Step 5: the new volatility, by the Illinois algorithm; false if it does not converge. */
static bool
new_volatility(double sigma, double phi, double v, double delta, double tau, double *out)
{
	double a = log(sigma * sigma), A = a, B;
	if (delta * delta > phi * phi + v) {
		B = log(delta * delta - phi * phi - v);
	} else {
		int k = 1;
		while (f_of(a - k * tau, delta, phi, v, a, tau) < 0) {
			if (++k > ITERATIONS)
				return false;
		}
		B = a - k * tau;
	}
	double fA = f_of(A, delta, phi, v, a, tau), fB = f_of(B, delta, phi, v, a, tau);
	for (int i = 0; fabs(B - A) > EPSILON; i++) {
		if (i == ITERATIONS)
			return false;
		double C = A + (A - B) * fA / (fB - fA), fC = f_of(C, delta, phi, v, a, tau);
		if (fC * fB <= 0) {
			A = B;
			fA = fB;
		} else {
			fA /= 2.0;
		}
		B = C;
		fB = fC;
	}
	*out = exp(A / 2.0);
	return true;
}

static struct glicko
clamped(const struct glicko_params *p, double rating, double deviation, double volatility)
{
	return (struct glicko){
		clamp(rating, p->rating_min, p->rating_max),
		clamp(deviation, p->deviation_min, p->deviation_max),
		volatility > p->volatility_max ? p->volatility_max : volatility,
	};
}

double
glicko_idle_deviation(const struct glicko_params *p, struct glicko g, double periods)
{
	double phi = g.deviation / SCALE;
	phi = sqrt(phi * phi + periods * g.volatility * g.volatility);
	return clamp(phi * SCALE, p->deviation_min, p->deviation_max);
}

bool
glicko_update(const struct glicko_params *p, struct glicko player, const struct glicko_result *results, int n,
	double periods, struct glicko *out)
{
	if (n <= 0) {
		/* Step 6 alone: a player with no game keeps rating and volatility. */
		*out = clamped(p, player.rating, glicko_idle_deviation(p, player, periods), player.volatility);
		return true;
	}
	/* Step 2: to the Glicko-2 scale. */
	double mu = (player.rating - 1500.0) / SCALE, phi = player.deviation / SCALE;
	/* Steps 3 and 4: the estimated variance v and the improvement delta (over v). */
	double inv_v = 0, sum = 0;
	for (int j = 0; j < n; j++) {
		double mu_j = (results[j].opponent.rating - 1500.0) / SCALE, phi_j = results[j].opponent.deviation / SCALE;
		double g = g_of(phi_j), e = e_of(mu, mu_j, phi_j);
		inv_v += g * g * e * (1.0 - e);
		sum += g * (results[j].score - e);
	}
	double v = 1.0 / inv_v, delta = v * sum, sigma;
	/* Step 5. */
	if (!new_volatility(player.volatility, phi, v, delta, p->tau, &sigma))
		return false;
	/* Steps 6 and 7: the pre-period deviation, then the new deviation and rating. */
	double phi_star = sqrt(phi * phi + periods * sigma * sigma);
	double phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
	double mu_new = mu + phi_new * phi_new * sum;
	/* Step 8: back to the Glicko scale. */
	*out = clamped(p, mu_new * SCALE + 1500.0, phi_new * SCALE, sigma);
	return true;
}

bool
glicko_duel(const struct glicko_params *p, struct glicko a, struct glicko b, double score_a, double periods,
	struct glicko *a_out, struct glicko *b_out)
{
	/* Both from the ratings before the duel: neither update sees the other's result. */
	struct glicko_result ra = { b, score_a }, rb = { a, 1.0 - score_a };
	struct glicko na, nb;
	if (!glicko_update(p, a, &ra, 1, periods, &na) || !glicko_update(p, b, &rb, 1, periods, &nb))
		return false;
	*a_out = na;
	*b_out = nb;
	return true;
}

double
glicko_expect(struct glicko a, struct glicko b)
{
	double phi_a = a.deviation / SCALE, phi_b = b.deviation / SCALE;
	return e_of((a.rating - 1500.0) / SCALE, (b.rating - 1500.0) / SCALE, sqrt(phi_a * phi_a + phi_b * phi_b));
}
