/* test_device_peak: names as deviceProperties writes them meet the right row. */
#include "check.h"
#include "device_peak.h"

static const char *model(const char *name)
{
	struct device_peak p;

	device_peak_find(name, &p);
	return p.model ? p.model : "(none)";
}

int main(void)
{
	struct device_peak p;

	CHECK_EQ_STR(model("NVIDIA H100 80GB HBM3"), "H100 SXM");
	CHECK_EQ_STR(model("NVIDIA H100 PCIe"), "H100 PCIe");
	CHECK_EQ_STR(model("NVIDIA H100 NVL"), "H100 NVL");
	CHECK_EQ_STR(model("NVIDIA H200"), "H200");
	CHECK_EQ_STR(model("NVIDIA H20"), "H20");
	CHECK_EQ_STR(model("NVIDIA A100-SXM4-80GB"), "A100 80GB SXM");
	CHECK_EQ_STR(model("NVIDIA A100-SXM4-40GB"), "A100 40GB SXM");
	CHECK_EQ_STR(model("NVIDIA A100 80GB PCIe"), "A100 80GB PCIe");
	CHECK_EQ_STR(model("NVIDIA A100-PCIE-40GB"), "A100 40GB PCIe");
	CHECK_EQ_STR(model("NVIDIA A10"), "A10");
	CHECK_EQ_STR(model("NVIDIA A10G"), "(none)");
	CHECK_EQ_STR(model("NVIDIA L40S"), "L40S");
	CHECK_EQ_STR(model("Tesla V100-SXM2-32GB"), "V100 SXM2");
	CHECK_EQ_STR(model("Tesla V100-PCIE-16GB"), "V100 PCIe");
	CHECK_EQ_STR(model("NVIDIA B200"), "B200");
	CHECK_EQ_STR(model("AMD Instinct MI300X"), "MI300X");
	CHECK_EQ_STR(model("AMD Instinct MI325X"), "MI325X");
	CHECK_EQ_STR(model("AMD Instinct MI250X"), "MI250X");
	CHECK_EQ_STR(model("AMD Instinct MI210"), "MI210");
	CHECK_EQ_STR(model("Ascend910B3"), "Ascend 910B");
	CHECK_EQ_STR(model(""), "(none)");
	CHECK_EQ_STR(model(NULL), "(none)");
	device_peak_find("NVIDIA H100 80GB HBM3", &p);
	CHECK(device_peak_tflops(&p, PERF_BF16) == 989.5);
	CHECK(device_peak_tflops(&p, PERF_FP8) == 1979);
	CHECK(p.tbps == 3.35);
	CHECK(device_peak_tflops(&p, PERF_DTYPE_UNKNOWN) == 0);
	return check_done("test_device_peak");
}
