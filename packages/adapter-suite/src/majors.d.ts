// The older framework majors, installed beside the current ones under their own names (pnpm aliases). Their
// API, as the drivers use it, is the current major's, so they are typed as it.
declare module 'express4' {
  import express from 'express'
  export default express
}
declare module 'koa2' {
  import Koa from 'koa'
  export default Koa
}
