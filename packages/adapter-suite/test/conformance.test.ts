import { describeAdapterConformance, drivers, memoryStore, redisStore } from '../src/index.js'

for (const driver of drivers) {
  describeAdapterConformance(driver, memoryStore)
  describeAdapterConformance(driver, redisStore(driver.name), 'redis')
}
