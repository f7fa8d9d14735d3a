{#- Recommender metrics: the training interactions give item popularity (novelty, ARP);
    no judgments are read. -#}
{{ polars_rank.evaluate(ref('run_bm25'), metrics=['coverage@5', 'gini@5', 'novelty@5', 'arp@5'],
                        interactions=ref('interactions')) }}
