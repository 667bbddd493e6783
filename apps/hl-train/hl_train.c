/*
 * hl-train: train a model described in a JSON file on MNIST or
 * Fashion-MNIST on the device, through libhlrt (see train_loop.h), on
 * one device or data parallel on several (dp_launch.h).
 */
#include "backend.h"
#include "cli.h"
#include "dp_launch.h"

int main(int argc, char **argv)
{
	struct train_options opt;

	switch (cli_parse(argc, argv, 1, &opt)) {
	case 0:
		return dp_main(argv, &opt, &device_backend_ops);
	case 2:
		return 0;
	default:
		return 2;
	}
}
