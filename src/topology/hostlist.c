/* Placeholder: replaced by the Slurm import work. */
