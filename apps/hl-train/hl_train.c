/*
 * hl-train: train a model described in a JSON file on MNIST or
 * Fashion-MNIST on the device, through libhlrt (see train_loop.h).
 */
#include "backend.h"
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv, 1, &device_backend_ops);
}
