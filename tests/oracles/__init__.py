"""The metrics against independent implementations: trec_eval's own outputs, pytrec_eval,
ranx, ir_measures, trec_eval's C loops in Python, MS Recommenders, RecBole."""
