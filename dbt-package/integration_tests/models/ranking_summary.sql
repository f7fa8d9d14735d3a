{{ polars_rank.evaluate(ref('run_bm25'), ref('qrels'),
                        metrics=['nDCG@10', 'P@5', 'AP', 'RR', 'R@10', 'bpref', 'Rprec', 'num_ret'],
                        left_out_column='left_out') }}
