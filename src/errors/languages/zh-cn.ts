/**
 * Simplified Chinese (`zh-CN`): every code's texts and the words around them, written for readers in mainland China
 * (docs/languages.md). Codes, numbers, header names and product names stay as they are. Pure.
 */
import type { CatalogCode, CodeText, Translation, Words } from "./words";

const sec = (n: number): string => `${n} 秒`;

/** The opening of every retryable guidance: wait, then what the operator should look at if it persists. */
const waitThen = (wait: number, operator: string): string =>
  `**请稍后重试。** 请至少等待 ${sec(wait)}。如果错误仍然存在，${operator}`;

const BLOCKED = "**请勿重试。** 此拦截是有意为之。如果您认为这是误拦截，请联系网站所有者。";
const UNPUBLISHED = "此代码的确切含义未公开。";
const IP_BANNED: CodeText = {
  title: "访问被拒绝：您的 IP 地址已被封禁",
  detail: "网站所有者封禁了您的 IP 地址。",
  whatYouShouldDo: BLOCKED,
};
const CLIENT_TLS: CodeText = {
  title: "客户端 TLS 错误",
  detail: `您客户端的 TLS 连接不符合该网站的要求。${UNPUBLISHED}`,
  whatYouShouldDo: "**请勿原样重试。** 请使用较新的 TLS 客户端（版本、密码套件和证书）。",
};
const ZONE_CONFIG: CodeText = {
  title: "区域配置错误",
  detail: `该网站在边缘网络上的配置导致此请求无法处理。${UNPUBLISHED}`,
  whatYouShouldDo: "**请勿重试。** 网站运营者需要检查该区域的配置。",
};
const WORKER_FAILED: CodeText = {
  title: "Worker 错误",
  detail: `该网站的一个脚本执行失败。${UNPUBLISHED}`,
  whatYouShouldDo: "**请勿重试。** 网站运营者需要查看该脚本的日志。",
};
const REQUEST_BLOCKED: CodeText = {
  title: "访问被拒绝",
  detail: `网站所有者拦截了此请求。${UNPUBLISHED}`,
  whatYouShouldDo: BLOCKED,
};
const SNIPPET_FAILED: CodeText = {
  title: "Snippet 错误",
  detail: `该网站配置的一个 Snippet 执行失败。${UNPUBLISHED}`,
  whatYouShouldDo: "**请勿重试。** 网站运营者需要检查该区域的 Snippets。",
};
const FIX_REWRITE = "**请勿重试。** 网站运营者需要修正该重写规则。";
const FIX_TRANSFORM = "**请勿重试。** 网站运营者需要修正该转换规则。";
const LEGAL = "**请勿重试。** 这是法律上的限制，重试也无法解除。";

const CODES: Readonly<Record<CatalogCode, CodeText>> = {
  500: {
    title: "内部服务器错误",
    detail: "边缘网络在处理此请求时发生了内部错误，问题不一定出在源服务器。",
    whatYouShouldDo: (w) => `**请稍后重试。** 请至少等待 ${sec(w)}。如果错误仍然存在，请将 Ray ID 告知网站运营者。`,
  },
  502: {
    title: "网关错误",
    detail: "网站的源服务器向边缘网络返回了无效或不完整的响应，通常说明源服务器过载或配置有误。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应检查源服务器的运行状况和配置。"),
  },
  504: {
    title: "网关超时",
    detail: "网站的源服务器未在允许的时间内响应边缘网络，通常说明源服务器过载，或某个后端进程耗时过长。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应排查源服务器上长时间运行的进程。"),
  },
  520: {
    title: "Web 服务器返回了未知错误",
    detail: "网站的源服务器发送了边缘网络无法解析的响应，或在响应完成前关闭了连接。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应在源服务器日志中查找崩溃、空响应或格式错误的标头。"),
  },
  521: {
    title: "Web 服务器已停止运行",
    detail: "网站的源服务器拒绝了来自边缘网络的连接。源服务器已离线，或正在阻止边缘网络。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应确认源服务器正在运行，并接受来自边缘网络的连接。"),
  },
  522: {
    title: "连接超时",
    detail:
      "边缘网络无法与源服务器建立 TCP 连接。TCP 握手超时，可能是源服务器过载、防火墙阻止了边缘网络，或在网络层面无法访问。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应检查防火墙规则，并确保源服务器接受来自边缘网络 IP 段的连接。"),
  },
  523: {
    title: "无法访问源服务器",
    detail: "边缘网络没有通往源服务器地址的网络路由。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应检查源服务器的地址及其网络路由。"),
  },
  524: {
    title: "发生超时",
    detail: (timeout) =>
      `网站的源服务器未在 ${sec(timeout)}的 Proxy Read Timeout 内返回完整响应。连接已经建立，但源服务器响应时间过长。`,
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应检查是否有长时间运行的进程，或源服务器是否过载。"),
  },
  525: {
    title: "SSL 握手失败",
    detail: "边缘网络与源服务器之间的 TLS 握手失败。",
    whatYouShouldDo: "**请勿重试。** 源服务器的 TLS 配置有问题，在网站运营者修复之前，重试无济于事。",
  },
  526: {
    title: "SSL 证书无效",
    detail: "源服务器出示的证书无法通过边缘网络的验证（已过期、自签名，或签发给其他名称）。",
    whatYouShouldDo: "**请勿重试。** 在网站运营者为源服务器安装有效证书之前，重试无济于事。",
  },

  1000: {
    title: "DNS 指向了禁止使用的 IP",
    detail: "该网站的 DNS 或源服务器指回了边缘网络本身，请求会陷入循环，边缘网络已将其终止。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须将该区域的源服务器指向边缘网络以外的服务器。",
  },
  1001: {
    title: "DNS 解析错误",
    detail: "请求的主机名未在边缘网络上配置，因此边缘网络不知道该把请求发往何处。",
    whatYouShouldDo: "**请勿重试。** 请检查主机名。如果主机名正确，网站运营者必须在边缘网络上配置该区域。",
  },
  1002: {
    title: "DNS 指向了禁止使用的 IP",
    detail: "该网站的 DNS 记录指向了边缘网络不允许用作源服务器的地址。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须将 DNS 记录改为源服务器的真实地址。",
  },
  1003: {
    title: "访问被拒绝：不允许通过 IP 直接访问",
    detail: "请求是通过 IP 地址而不是网站的主机名访问边缘网络的。",
    whatYouShouldDo: "**请勿原样重试。** 请通过主机名访问该网站，而不是使用边缘网络的 IP 地址。",
  },
  1004: {
    title: "主机尚未配置为提供 Web 流量",
    detail: "边缘网络已知道该主机名，但它尚未配置为提供 Web 流量，例如其 DNS 仍在生效中。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应确认该主机名已通过代理，且其 DNS 已经生效。"),
  },
  1005: {
    title: "访问被拒绝：自治系统（ASN）已被封禁",
    detail: "网站所有者封禁了您的 IP 地址所属的网络（ASN）。",
    whatYouShouldDo: BLOCKED,
  },
  1006: {
    title: "访问被拒绝：您的 IP 地址已被封禁",
    detail: "网站所有者封禁了您的 IP 地址（或包含该地址的地址段）。",
    whatYouShouldDo: BLOCKED,
  },
  1007: IP_BANNED,
  1008: IP_BANNED,
  1009: {
    title: "访问被拒绝",
    detail: "网站所有者封禁了您的 IP 地址所在的国家或地区。",
    whatYouShouldDo: BLOCKED,
  },
  1010: {
    title: "访问被拒绝",
    detail: "网站所有者根据您的浏览器特征拦截了访问。",
    whatYouShouldDo: "**请勿重试。** 网站所有者已封禁您的 User-Agent。",
  },
  1011: {
    title: "访问被拒绝（禁止盗链）",
    detail: "网站所有者不允许其他网站嵌入此资源。",
    whatYouShouldDo: "**请勿重试。** 请在该网站本身打开此资源，而不是通过其他网站。",
  },
  1012: {
    title: "访问被拒绝",
    detail: "网站所有者拦截了此请求，例如因为您的地址存在可疑活动。",
    whatYouShouldDo: BLOCKED,
  },
  1013: {
    title: "HTTP 主机名与 TLS SNI 主机名不一致",
    detail: "HTTP 请求中的主机名与 TLS 握手（SNI）中发送的主机名不同。",
    whatYouShouldDo: "**请勿原样重试。** 请在 TLS 握手和请求中发送相同的主机名，并检查中间的代理。",
  },
  1014: {
    title: "禁止跨账户 CNAME",
    detail: "该主机名是指向另一个账户区域的 CNAME，边缘网络不允许这样做。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须将该主机名指向自己账户下的区域。",
  },
  1015: {
    title: "您的请求已被限速",
    detail: "网站所有者的配置正在限制您的请求速率。",
    whatYouShouldDo: (w) =>
      `**请稍后重试。** 此拦截是暂时的。请至少等待 ${sec(w)}，然后重试。\n\n建议做法：\n1. 下一次请求前等待 ${sec(w)}\n2. 如果再次被限速，请按该响应的 Retry-After 所示时间等待：那是距离拦截结束的剩余时间\n3. 如果重试 5 次后仍被限速，请停下来重新审视您的请求模式`,
  },
  1016: {
    title: "源服务器 DNS 错误",
    detail: "边缘网络无法解析该网站源服务器的主机名。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须修正源服务器的 DNS 记录（或区域配置中的源服务器地址）。",
  },
  1017: CLIENT_TLS,
  1018: {
    title: "找不到主机",
    detail: "边缘网络找不到请求的主机，例如该区域是刚刚添加的。",
    whatYouShouldDo:
      "**请勿重试。** 网站运营者必须检查该主机名在边缘网络上的配置；刚添加的区域可能需要几分钟才能生效。",
  },
  1019: {
    title: "计算服务器错误",
    detail: "该网站的一个脚本递归调用了自身，边缘网络终止了这个循环。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须修复该脚本的递归问题。",
  },
  1020: {
    title: "访问被拒绝",
    detail: "该请求被网站所有者配置的防火墙规则拦截。",
    whatYouShouldDo: BLOCKED,
  },
  1023: {
    title: "找不到主机",
    detail: "边缘网络在其合作伙伴的 DNS 配置中找不到请求的主机。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须检查该主机名的 DNS 配置。",
  },
  1025: {
    title: "请稍后再来",
    detail: "该网站已达到其套餐的请求上限。",
    whatYouShouldDo: "**请勿重试。** 该网站已用完其套餐的请求额度，只有网站运营者才能提高上限。",
  },
  1026: {
    title: "因法律原因无法访问",
    detail: "出于法律原因，对此内容的访问受到限制。",
    whatYouShouldDo: LEGAL,
  },
  1027: {
    title: "此网站已被暂时限速",
    detail: "网站所有者已超出 Workers 免费套餐的每日请求上限。该上限在 UTC 午夜重置。",
    whatYouShouldDo: "**请勿重试。** 该网站的每日请求上限在 UTC 午夜重置；在此之前，所有请求都会收到此错误。",
  },
  1028: CLIENT_TLS,
  1029: CLIENT_TLS,
  1033: {
    title: "隧道错误",
    detail: "该主机配置为隧道，但边缘网络目前无法连接到它。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应检查隧道连接器是否正在运行。"),
  },
  1034: {
    title: "边缘 IP 受限",
    detail: "该网站的 DNS 指向了边缘网络不接受作为源服务器的地址。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须修正该主机名的 DNS 记录。",
  },
  1035: {
    title: "请求重写无效（URI 路径无效）",
    detail: "该网站的 URL 重写规则生成了无效的 URI 路径。",
    whatYouShouldDo: FIX_REWRITE,
  },
  1036: {
    title: "请求重写无效（超出最大长度）",
    detail: "该网站的 URL 重写规则生成的值超出了允许的长度。",
    whatYouShouldDo: FIX_REWRITE,
  },
  1037: {
    title: "重写规则无效（表达式求值失败）",
    detail: "该网站的重写规则无法针对此请求对其表达式求值。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须修正该重写规则的表达式。",
  },
  1038: {
    title: "超出 HTTP 标头限制",
    detail: "请求的标头超出了该网站允许的大小。",
    whatYouShouldDo: (w) => `**请减小标头后重试。** 请至少等待 ${sec(w)}，并发送更少或更小的标头（尤其是 Cookie）。`,
  },
  1039: {
    title: "法律限制",
    detail: `出于法律原因，来自您所在位置的访问受到限制。${UNPUBLISHED}`,
    whatYouShouldDo: LEGAL,
  },
  1040: {
    title: "请求重写无效（不允许修改该标头）",
    detail: "该网站的转换规则试图修改一个不允许修改的标头。",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1041: {
    title: "请求重写无效（标头值无效）",
    detail: "该网站的转换规则生成了无效的标头值。",
    whatYouShouldDo: FIX_TRANSFORM,
  },
  1042: {
    title: "找不到脚本",
    detail: "该网站的一个脚本调用了同一账户下的另一个脚本，但无法通过这种方式访问它。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须通过绑定或路由来调用另一个脚本。",
  },
  1043: ZONE_CONFIG,
  1044: {
    title: "TLS 密码不符合 FIPS 标准",
    detail: "您的客户端协商使用的 TLS 密码套件不被该网站的 FIPS 策略允许。",
    whatYouShouldDo: "**请勿原样重试。** 请使用提供 FIPS 认可密码套件的 TLS 客户端。",
  },
  1045: {
    title: "不支持的功能或协议",
    detail: `请求使用了边缘网络不支持的功能或协议。${UNPUBLISHED}`,
    whatYouShouldDo: "**请勿原样重试。** 请使用受支持的协议和功能发送请求。",
  },
  1047: ZONE_CONFIG,
  1049: ZONE_CONFIG,
  1100: WORKER_FAILED,
  1101: {
    title: "Worker 抛出了异常",
    detail: "为该网站提供服务的脚本在处理请求时抛出了异常。",
    whatYouShouldDo: "**请勿重试。** 故障出在该网站的脚本中，请将 Ray ID 告知网站运营者。",
  },
  1102: {
    title: "Worker 超出了资源限制",
    detail: "网站所有者配置的 Worker 脚本超出了其资源限制。",
    whatYouShouldDo: "**请勿重试。** 网站运营者必须降低该脚本的 CPU 或内存占用。",
  },
  1103: WORKER_FAILED,
  1104: WORKER_FAILED,
  1105: {
    title: "Worker 暂时不可用",
    detail: `无法运行该网站的一个脚本。${UNPUBLISHED}`,
    whatYouShouldDo: "**请勿重试。** 网站运营者必须检查该脚本的部署。",
  },
  1106: IP_BANNED,
  1107: REQUEST_BLOCKED,
  1108: REQUEST_BLOCKED,
  1109: REQUEST_BLOCKED,
  1200: {
    title: "缓存连接数限制",
    detail: "边缘网络上等待源服务器的请求过多，因此此请求被拒绝。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应检查源服务器响应缓慢的原因。"),
  },
  1201: SNIPPET_FAILED,
  1202: SNIPPET_FAILED,
  1203: SNIPPET_FAILED,
  1204: SNIPPET_FAILED,
  1205: {
    title: "重定向次数过多",
    detail: "该网站的一个 Snippet 在处理此请求时重定向或重新获取的次数过多。",
    whatYouShouldDo: (w) => waitThen(w, "网站运营者应检查该 Snippet 是否存在重定向循环。"),
  },
  1206: SNIPPET_FAILED,
};

const WORDS: Words = {
  language: "zh-CN",
  errorTitle: (code, title) => `错误 ${code}：${title}`,
  footer: (operator) => `此错误由 ${operator} 代表网站所有者生成。`,
  seconds: sec,

  ownerBlock: "只有网站所有者才能解除此拦截。",
  ownerFix: "需要网站所有者来修复。",
  ownerNone: "网站所有者无需采取任何行动。",
  notRetryableLead: "重试无济于事",
  notRetryableBlock: "，除非拦截被解除。",
  notRetryableFix: "，除非问题原因得到修复。",
  notRetryableSame: "：同样的请求会得到同样的回应。",
  retryHelpsLead: "重试可能有效：",
  retryHelpsWait: (wait) => `请在 ${wait}后重试。`,

  eyebrow: (code, status) => `错误 ${code} · HTTP ${status}`,
  whatHappened: "发生了什么",
  whatYouCanDo: "您可以怎么做",
  details: "详细信息",
  rayId: "Ray ID",
  copy: "复制",
  copied: "已复制",
  selectAndCopy: "选择并复制",
  timeUtc: "时间（UTC）",
  website: "网站",
  httpStatus: "HTTP 状态",
  errorName: "错误名称",
  category: "类别",
  moreHelp: "更多帮助",
  aboutError: (code) => `关于错误 ${code}`,

  whereItBroke: "故障位置",
  hopYou: "您",
  hopEdge: "边缘网络",
  hopWebsite: "网站",
  subYou: "浏览器或应用",
  subEdge: "网络",
  originServer: "源服务器",
  stateWorking: "正常",
  stateError: "错误",
  stateBlocked: "已拦截",
  stateNotReached: "未到达",

  mdWhatHappened: "发生了什么",
  mdWhatYouShouldDo: "您应该怎么做",
  mdMoreHelp: "更多帮助",

  ref: {
    errorCodes: "错误代码",
    eyebrow: "参考",
    lead: "边缘网络可能生成的所有错误，按类型和类别分组。每个代码都链接到其页面：状态、重试方式、发生了什么以及该怎么做。",
    filter: "筛选",
    filterPlaceholder: "代码、标题、名称或类别",
    filterCount: "{total} 个代码中的 {n} 个",
    class5xx: "5xx 错误",
    class5xxAbout: "边缘网络无法从网站获得响应时生成的服务器错误。",
    class1xxx: "1xxx 错误",
    class1xxxAbout: "边缘网络错误：请求被边缘网络拒绝，或边缘网络无法处理该请求。",
    categories: {
      origin: "源站：网站的服务器",
      edge: "边缘：边缘网络本身",
      ssl: "SSL：网站的证书",
      access_denied: "访问被拒绝",
      rate_limit: "速率限制",
      dns: "DNS",
      config: "网站配置",
      tls: "TLS：客户端的连接",
      legal: "法律",
      worker: "Workers：网站的代码",
      rewrite: "重写规则",
      snippet: "Snippets",
      unsupported: "不支持",
    },
    noRetry: "不可重试",
    retryAfterChip: (s) => `${s} 秒后重试`,
    ownerAction: "需所有者处理",
    ownerActionLabel: "所有者处理",
    yes: "是",
    no: "否",
    allCodes: "全部错误代码",
    atAGlance: "概览",
    retry: "重试",
    notRetryable: (lead, reason) => `不可重试。${lead}${reason}没有 Retry-After 标头。`,
    retryable: (wait, s) => `可以重试：请等待 ${wait}（Retry-After: ${s}；速率限制规则可能设置自己的值）。`,
    required: "需要。",
    notRequired: "不需要。",
    whatToDo: "该怎么做",
    formats: "格式",
    formatsLead: ["错误会以客户端 ", " 标头优先选择的格式返回："],
    formatHtml: "浏览器和没有偏好的客户端。",
    formatJson: ["或", "同样的 17 个字段。"],
    formatMarkdown: "YAML 前置元数据，然后是发生了什么和该怎么做。",
  },
};

export const ZH_CN: Translation = { words: WORDS, codes: CODES };
