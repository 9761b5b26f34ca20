"""The checkers the detector runs, in the order it calls them.

A new kind of evidence is one module with a `Checker` subclass (`checker.py`) and one
line here. The order is the order of their reports and of their hooks within an event:
a landing's expectations close rent, tax, card draw, then Go salary; a throw closes a
landing before the dice are checked; the inferred changes are reported observation,
rent and tax factors, cards, unknown payments, charges on holdings, game endings.
"""

from __future__ import annotations

from agents.planner.detection.bank import BankChecker
from agents.planner.detection.cards import CardChecker
from agents.planner.detection.dice import DiceChecker
from agents.planner.detection.endings import EndingChecker
from agents.planner.detection.factors import ChargeFactors
from agents.planner.detection.groups import GroupChecker
from agents.planner.detection.holdings import HoldingCharges
from agents.planner.detection.movement import MovementChecker
from agents.planner.detection.observation import ObservationChecker
from agents.planner.detection.prices import PriceChecker
from agents.planner.detection.printed import PrintedValues
from agents.planner.detection.refusals import RefusalChecker
from agents.planner.detection.rents import RentChecker
from agents.planner.detection.taxes import TaxChecker
from agents.planner.detection.unknown import UnknownPaymentChecker

CHECKERS = (ObservationChecker, RentChecker, TaxChecker, ChargeFactors, PriceChecker,
            BankChecker, CardChecker, UnknownPaymentChecker, HoldingCharges, EndingChecker,
            DiceChecker, MovementChecker, RefusalChecker, GroupChecker, PrintedValues)
