/*
 * hl-train-ref: the training run of hl-train on the CPU reference
 * trainer, the golden oracle (same model files, data, seed and output).
 */
#include "backend.h"
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv, 0, &ref_trainer_ops);
}
