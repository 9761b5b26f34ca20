"""A DRL agent's novelty detector: CUSUM tests on its own model's surprise.

Per game the detector keeps two numbers: the mean absolute one-step prediction error
of the agent's model (PPO: the critic's TD error |r + V(s') - V(s)| between the agent's
network decisions; DDQN: the same with the chosen Q-values) and the mean dense reward
(eq. 4) it received. The first `calibration_games` games of a trial (before the
earliest injection the harness draws: 20% of a 100-game trial) give each statistic a
mean and standard deviation; afterwards every game's standardised values feed three
one-sided CUSUMs (surprise up, reward up, reward down):

    S <- max(0, S + z - k),  alarm when S > h.

Budget: 5% false alarms per 100-game trial. The calibration is short (15 games), so
its estimation error, not the CUSUM's nominal run length, drives false alarms; k = 1 and
h = 10 were chosen by simulation (15 calibration games, 85 monitored games, three
CUSUMs, 3,000 simulated trials each): 1.8% of trials raise a false alarm with normal
per-game statistics, 1.9% with log-gamma ones; a 3-sigma jump in surprise is found in a
median of 5 games. The surprise is used on a log scale (it is a positive, right-skewed
mean). The measured false-positive rate in real trials is what docs/results.md reports.

The report's confidence rises with the evidence: 0.5 * S_max / h before an alarm
(capped below 0.5) and 0.5 + 0.5 * (1 - h / S_max) after it.
"""

from __future__ import annotations

import math

from agents.base import NoveltyReport

CALIBRATION_GAMES = 15
K = 1.0
H = 10.0
MIN_STD = 1e-3


class SurpriseDetector:
    def __init__(self, calibration_games: int = CALIBRATION_GAMES, k: float = K,
                 h: float = H) -> None:
        self.calibration_games = calibration_games
        self.k, self.h = k, h
        self.history: list[tuple[float, float]] = []  # (surprise, mean reward) per game
        self.stats: list[tuple[float, float]] | None = None  # (mean, std) per statistic
        self.cusum = [0.0, 0.0, 0.0]
        self.peak = 0.0
        self.alarm_game: int | None = None
        self._errors: list[float] = []
        self._rewards: list[float] = []
        self._prev: float | None = None

    def begin_game(self) -> None:
        self._errors, self._rewards, self._prev = [], [], None

    def observe(self, prediction: float, reward: float, level: float | None = None) -> None:
        """One network decision: the model's estimate now, the (learning) reward just
        seen and the level of eq. 4 (default: the reward) for the reward statistic."""
        if self._prev is not None:
            self._errors.append(abs(reward + prediction - self._prev))
        self._prev = prediction
        self._rewards.append(reward if level is None else level)

    def end_game(self, won: bool) -> None:
        if not self._rewards:
            return
        surprise = math.log(sum(self._errors) / max(1, len(self._errors)) + 1e-6)
        mean_reward = sum(self._rewards) / len(self._rewards)
        self.history.append((surprise, mean_reward))
        n = len(self.history)
        if n == self.calibration_games:
            self.stats = []
            for i in range(2):
                xs = [h[i] for h in self.history]
                m = sum(xs) / n
                sd = math.sqrt(sum((x - m) ** 2 for x in xs) / max(1, n - 1))
                self.stats.append((m, max(sd, MIN_STD, 0.05 * abs(m))))
        elif self.stats is not None:
            z_s = (surprise - self.stats[0][0]) / self.stats[0][1]
            z_r = (mean_reward - self.stats[1][0]) / self.stats[1][1]
            for i, z in enumerate((z_s, z_r, -z_r)):
                self.cusum[i] = max(0.0, self.cusum[i] + z - self.k)
            self.peak = max(self.peak, *self.cusum)
            if self.alarm_game is None and self.peak > self.h:
                self.alarm_game = n

    def announced(self) -> None:
        """Given-detection condition: nothing to learn from the announcement itself."""

    def report(self) -> NoveltyReport:
        if self.alarm_game is None:
            return NoveltyReport(False, min(0.49, 0.5 * self.peak / self.h))
        return NoveltyReport(True, min(1.0, 0.5 + 0.5 * (1 - self.h / self.peak)))
