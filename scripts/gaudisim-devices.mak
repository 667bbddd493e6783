# QEMU devices for the gaudisim VM (x86_64-softmmu), used with
# --without-default-devices: only what is listed here (and what it selects)
# is built. scripts/build-qemu.sh installs this file as
# configs/devices/x86_64-softmmu/gaudisim.mak in the QEMU tree.

# q35 machine; it selects the ISA serial port used as the console.
CONFIG_Q35=y
# PCIe root ports, to place gaudisim behind a regular port.
CONFIG_PCIE_PORT=y
# Host folder shared into the guest.
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_9P=y
# intel-iommu, to run the driver with DMA remapping.
CONFIG_VTD=y
# The accelerator.
CONFIG_GAUDISIM=y
