{#- A classification report requested by its name in polars_rank.yml. -#}
{{ polars_rank.report('clicks_overall', predictions=ref('predictions')) }}
