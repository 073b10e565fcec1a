/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_CPUMASK_H
#define MOCK_LINUX_CPUMASK_H

/* sysconf(_SC_NPROCESSORS_ONLN), at least 1. */
unsigned int num_online_cpus(void);
unsigned int num_possible_cpus(void);

#define nr_cpu_ids	num_possible_cpus()

static inline int raw_smp_processor_id(void)
{
	return 0;
}

#define smp_processor_id()	raw_smp_processor_id()

#endif /* MOCK_LINUX_CPUMASK_H */
