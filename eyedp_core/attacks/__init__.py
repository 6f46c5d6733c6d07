"""Attacks on feature tables: re-identification, gender and document type, clean or under DP, honestly.

`evaluate` runs one task under one privacy setting (by default against the strongest attacker, trained on its
own independent private release); `sweep` runs grids and yields results as they finish;
`find_tradeoff` / `epsilon_for_accuracy` answer the trade-off questions in a sentence;
`find_transitions` / `epsilons_to_add` say where the strongest attack leaves chance and the task recovers; `clean_baseline` and
`measure_traps` give the clean accuracies and the measured inflation of the published protocols' two flaws.
The published protocols (the papers' split, clean data) are in `eyedp_core.attacks.protocols`.
docs/PRIVACY_MODEL.md §0.6, §3, §7.4.
"""
from eyedp_core.attacks.baseline import Traps, clean_baseline, measure_traps
from eyedp_core.attacks.classifiers import CLASSIFIERS, PAPER_ORDER
from eyedp_core.attacks.engine import (
    BELOW_CHANCE,
    COLLAPSE_SHARE,
    TRAIN_ON,
    EvalResult,
    EvaluateSpec,
    Point,
    TrainOn,
    below_chance,
    collapsed,
    evaluate,
    prediction_share,
)
from eyedp_core.attacks.grid import (
    DEFAULT_EPSILONS,
    DEFAULT_MECHANISMS,
    DEFAULT_SCENARIOS,
    PAPER_EPSILONS,
    GridSpec,
    Runner,
    SweepRow,
    available_tasks,
    paper_table,
    plan_points,
    rows_frame,
    run_point,
    summarise,
    sweep,
)
from eyedp_core.attacks.privatize import (
    ACCOUNTING,
    ATTACK_MECHANISMS,
    ReleasePlan,
    ReleaseSetting,
    plan_release,
    release,
)
from eyedp_core.attacks.splits import GAPS, TASKS, task_spec
from eyedp_core.attacks.tables import AttackTable, label_columns, prepare
from eyedp_core.attacks.tradeoff import TradeOff, epsilon_for_accuracy, find_tradeoff
from eyedp_core.attacks.transition import Transition, epsilons_to_add, find_transitions, strongest

__all__ = ["ACCOUNTING", "ATTACK_MECHANISMS", "AttackTable", "BELOW_CHANCE", "CLASSIFIERS", "COLLAPSE_SHARE", "below_chance",
           "DEFAULT_EPSILONS", "DEFAULT_MECHANISMS", "DEFAULT_SCENARIOS", "EvalResult", "EvaluateSpec", "GridSpec", "Transition", "TrainOn",
           "collapsed", "epsilons_to_add", "find_transitions", "prediction_share", "strongest", "GAPS", "PAPER_EPSILONS", "PAPER_ORDER", "Point", "ReleasePlan",
           "Runner",
           "SweepRow", "TASKS", "TRAIN_ON", "TradeOff", "Traps", "available_tasks", "clean_baseline",
           "epsilon_for_accuracy", "evaluate", "find_tradeoff", "label_columns", "measure_traps", "paper_table",
           "plan_points", "plan_release", "prepare", "release", "ReleaseSetting", "rows_frame", "run_point", "summarise", "sweep",
           "task_spec"]
