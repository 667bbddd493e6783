/*
 * QTest for the gaudisim accelerator: registers every test. The fixture
 * is in gaudisim-test-fixture.c, the tests in gaudisim-test-<subject>.c.
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "gaudisim-test.h"

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/gaudisim/pci/ids", test_pci_ids);
    qtest_add_func("/gaudisim/pci/bars", test_pci_bars);
    qtest_add_func("/gaudisim/regs/identity", test_regs_identity);
    qtest_add_func("/gaudisim/regs/bad-writes", test_bad_register_writes);
    qtest_add_func("/gaudisim/regs/properties", test_properties);
    qtest_add_func("/gaudisim/pci/hot-unplug", test_hot_unplug);
    qtest_add_func("/gaudisim/hbm/window", test_hbm_window);
    qtest_add_func("/gaudisim/msix/request", test_msix_request);
    qtest_add_func("/gaudisim/msix/user-intr", test_user_intr_mmio);
    qtest_add_func("/gaudisim/msix/user-intr-cb", test_user_intr_cb);
    qtest_add_func("/gaudisim/msix/user-intr-monitor", test_user_intr_monitor);
    qtest_add_func("/gaudisim/pcie/counters", test_pcie_counters);
    qtest_add_func("/gaudisim/regs/board-identity", test_board_identity);
    qtest_add_func("/gaudisim/regs/dbg-mem-port", test_dbg_mem_port);
    qtest_add_func("/gaudisim/queue/dma-job", test_dma_job);
    qtest_add_func("/gaudisim/queue/all-queues", test_all_queues);
    qtest_add_func("/gaudisim/queue/large-job", test_large_job);
    qtest_add_func("/gaudisim/queue/malformed", test_malformed);
    qtest_add_func("/gaudisim/queue/fence", test_fence);
    qtest_add_func("/gaudisim/queue/load-and-exe", test_load_and_exe);
    qtest_add_func("/gaudisim/queue/no-bus-master", test_no_bus_master);
    qtest_add_func("/gaudisim/reset/register-mid-job", test_reset_register);
    qtest_add_func("/gaudisim/reset/system-reset-mid-job", test_reset_system);
    qtest_add_func("/gaudisim/reset/flr-mid-job", test_reset_flr);
    qtest_add_func("/gaudisim/iq/hbm-dma", test_iq_hbm_dma);
    qtest_add_func("/gaudisim/iq/reset-mid-job", test_iq_reset_mid_job);
    qtest_add_func("/gaudisim/iq/reserved-hbm", test_reserved_hbm);
    qtest_add_func("/gaudisim/mme/gemm", test_mme_gemm);
    qtest_add_func("/gaudisim/mme/long-gemm-responsive",
                   test_mme_long_gemm_responsive);
    qtest_add_func("/gaudisim/mme/reset-during-long-gemm",
                   test_mme_reset_during_long_gemm);
    qtest_add_func("/gaudisim/tpc/relu", test_tpc_relu);
    qtest_add_func("/gaudisim/sync/chain-dma-mme-dma", test_chain);
    qtest_add_func("/gaudisim/sync/chain-dma-mme-tpc-dma", test_chain_relu);
    qtest_add_func("/gaudisim/eq/error-event", test_eq_error_event);
    qtest_add_func("/gaudisim/mmu/va-dma-and-fault", test_mmu_va_dma);
    qtest_add_func("/gaudisim/fault/ecc", test_fault_ecc);
    qtest_add_func("/gaudisim/fault/hang", test_fault_hang);
    qtest_add_func("/gaudisim/fault/drop-irq", test_fault_drop_irq);
    qtest_add_func("/gaudisim/fault/thermal-spike", test_fault_thermal_spike);
    qtest_add_func("/gaudisim/nic/fabric", test_nic_fabric);
    qtest_add_func("/gaudisim/nic/module-taken", test_nic_module_taken);
    qtest_add_func("/gaudisim/nic/scale-out", test_nic_scaleout);

    return g_test_run();
}
